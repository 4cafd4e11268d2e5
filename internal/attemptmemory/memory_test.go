// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package attemptmemory

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

var t0 = time.Date(2026, 11, 26, 11, 17, 57, 0, time.UTC)

// The gathering of xlaoom explain, on a job that backs off, fails (two
// records), backs off again and fails a minute later.
func TestFailureIsGivenTheAttemptsBeforeIt(t *testing.T) {
	m := New(time.Minute, 0, 0)
	const job = 1
	m.Attempted(job, 11, t0) // the pool's set-up backs off 11 times
	assert.Equal(t, 11, m.Failed(job, t0.Add(10*time.Second), t0, false).Refused, "the failure takes the attempts before it")
	m.Attempted(job, 1, t0)
	assert.Equal(t, 12, m.Failed(job, t0.Add(11*time.Second), t0, false).Refused,
		"a record of the same failure keeps what the failure took, with the attempts in between")
	assert.Equal(t, 12, m.Failed(job, time.Time{}, t0, false).Refused, "an undated record states the open failure again")
	assert.Equal(t, 0, m.Failed(job, t0.Add(71*time.Second), t0, false).Refused, "a failure the window after the last is new: nothing since")
	m.Attempted(job, 2, t0)
	assert.Equal(t, 2, m.Failed(job, t0.Add(200*time.Second), t0, false).Refused, "a new failure gets only the attempts since the last")
	assert.Equal(t, 2, m.Failed(job, t0.Add(150*time.Second), t0, false).Refused, "a record dated before the last one is within the window: the same failure")
}

// The records of one failure share the first verdict given to it, until the
// record that holds the raised exception; a failure the window later, a
// forgotten job and another job start with none.
func TestFailureKeepsItsFirstVerdict(t *testing.T) {
	m := New(time.Minute, 0, time.Hour)
	const job = 1
	assert.Empty(t, m.Failed(job, t0, t0, false).Verdict, "a first record: nothing to take")
	m.Decided(job, "futile")
	assert.Equal(t, "futile", m.Failed(job, t0.Add(time.Second), t0, false).Verdict, "a later record of the failure")
	m.Decided(job, "may_help")
	assert.Equal(t, "futile", m.Failed(job, time.Time{}, t0, true).Verdict, "the first verdict stands; an undated record and the raised one take it")
	assert.Empty(t, m.Failed(job, t0.Add(2*time.Second), t0, false).Verdict, "the raised exception ended the failure")
	m.Decided(job, "may_help")
	assert.Equal(t, "may_help", m.Failed(job, t0.Add(3*time.Second), t0, false).Verdict)
	assert.Empty(t, m.Failed(job, t0.Add(2*time.Minute), t0, false).Verdict, "a failure the window after the last is new")
	m.Decided(job, "futile")
	assert.Empty(t, m.Failed(2, t0.Add(2*time.Minute), t0, false).Verdict, "another job")
	assert.Empty(t, m.Failed(job, t0.Add(2*time.Minute), t0.Add(2*time.Hour), false).Verdict, "the job was forgotten")
}

// Settle: a failure's carried verdict wins; else the record's own, reread
// with the attempts before it when there were any; futile and may_help are
// handed to the failure's later records, unknown is not.
func TestSettle(t *testing.T) {
	m := New(time.Minute, 0, time.Hour)
	const job = 1
	reread := func(refused int) string {
		if refused >= 3 {
			return oom.RetryMayHelp
		}
		return oom.RetryUnknown
	}
	v := m.Settle(job, m.Failed(job, t0, t0, false), oom.RetryUnknown, reread)
	assert.Equal(t, oom.RetryUnknown, v, "no attempts: the record's own verdict")
	assert.Empty(t, m.Failed(job, t0.Add(time.Second), t0, false).Verdict, "unknown is not handed on")

	m.Attempted(job, 3, t0)
	given := m.Failed(job, t0.Add(2*time.Second), t0, false)
	assert.Equal(t, oom.RetryMayHelp, m.Settle(job, given, oom.RetryUnknown, reread), "reread with the attempts before it")
	given = m.Failed(job, t0.Add(3*time.Second), t0, true)
	assert.Equal(t, oom.RetryMayHelp, m.Settle(job, given, oom.RetryFutile, reread), "a later record takes the failure's first verdict")

	v = m.Settle(job, m.Failed(job, t0.Add(4*time.Second), t0, false), oom.RetryFutile, reread)
	assert.Equal(t, oom.RetryMayHelp, v, "the raised exception ended the last verdict, not its attempts: reread with them")
	v = m.Settle(job, m.Failed(job, t0.Add(2*time.Minute), t0, false), oom.RetryFutile, reread)
	assert.Equal(t, oom.RetryFutile, v, "a failure the window later, no attempts since: its own verdict")
	assert.Equal(t, oom.RetryFutile, m.Failed(job, t0.Add(121*time.Second), t0, false).Verdict, "handed on to its later records")
}

// Decided keeps nothing for a job with no failure record.
func TestDecidedWithoutFailure(t *testing.T) {
	m := New(time.Minute, 0, 0)
	m.Decided(1, "futile")
	assert.Zero(t, m.Len(), "an unknown job is not added")
	m.Attempted(1, 2, t0)
	m.Decided(1, "futile")
	f := m.Failed(1, t0, t0, false)
	assert.Equal(t, Failure{Refused: 2}, f, "a job with attempts only has no failure to give a verdict")
}

// The raised exception ends the verdict only: the attempts a failure took
// still go to a record less than the window later.
func TestRaisedKeepsTheAttempts(t *testing.T) {
	m := New(time.Minute, 0, 0)
	m.Attempted(1, 3, t0)
	assert.Equal(t, Failure{Refused: 3}, m.Failed(1, t0, t0, true))
	m.Decided(1, "may_help")
	assert.Equal(t, Failure{Refused: 3}, m.Failed(1, t0.Add(time.Second), t0, false))
}

func TestNoAttemptsNoRefusals(t *testing.T) {
	m := New(time.Minute, 0, 0)
	assert.Equal(t, 0, m.Failed(7, t0, t0, false).Refused)
	m.Attempted(7, 0, t0)
	m.Attempted(7, -3, t0)
	assert.Equal(t, 0, m.Failed(7, t0, t0, false).Refused, "no attempt reported: nothing given")
}

// An attempt of another job never counts.
func TestJobsAreApart(t *testing.T) {
	m := New(time.Minute, 0, 0)
	m.Attempted(1, 5, t0)
	assert.Equal(t, 0, m.Failed(2, t0, t0, false).Refused)
	assert.Equal(t, 5, m.Failed(1, t0, t0, false).Refused)
}

// A job not reported for the TTL is forgotten, and its slot is reused before
// the memory grows.
func TestExpiry(t *testing.T) {
	m := New(time.Minute, 0, time.Hour)
	m.Attempted(1, 3, t0)
	m.Attempted(2, 4, t0.Add(30*time.Minute))
	assert.Equal(t, 0, m.Failed(1, t0, t0.Add(time.Hour), false).Refused, "job 1 was last reported an hour ago")
	assert.Equal(t, 4, m.Failed(2, t0, t0.Add(time.Hour), false).Refused, "job 2 half an hour ago")

	m = New(time.Minute, 0, time.Hour)
	m.Attempted(1, 3, t0)
	m.Attempted(2, 4, t0.Add(2*time.Hour)) // job 1 is forgotten: its slot is job 2's
	assert.Equal(t, 1, m.Len())
	assert.Len(t, m.jobs, 1, "no slot added")
	assert.Equal(t, 4, m.Failed(2, t0, t0.Add(2*time.Hour), false).Refused)
}

// At most maxJobs are kept; the one used longest ago goes first.
func TestEvictionOldestFirst(t *testing.T) {
	m := New(time.Minute, 3, 0)
	for job := uint64(1); job <= 3; job++ {
		m.Attempted(job, int(job), t0.Add(time.Duration(job)*time.Second))
	}
	m.Attempted(1, 10, t0.Add(4*time.Second)) // job 1 is now the newest: job 2 is the oldest
	m.Attempted(4, 4, t0.Add(5*time.Second))  // evicts job 2
	assert.Equal(t, 3, m.Len())
	assert.Len(t, m.jobs, 3)
	assert.Equal(t, 0, m.Failed(2, t0, t0.Add(6*time.Second), false).Refused, "job 2 was evicted")
	// Job 2's return evicted job 3, the oldest then.
	assert.Equal(t, 0, m.Failed(3, t0, t0.Add(7*time.Second), false).Refused, "job 3 was evicted")
	assert.Equal(t, 4, m.Failed(4, t0, t0.Add(8*time.Second), false).Refused)
	assert.Equal(t, 0, m.Failed(1, t0, t0.Add(9*time.Second), false).Refused, "job 1 was evicted by job 3's return")
	checkList(t, m)
}

// The list through the slots holds every kept job once, newest to oldest.
func checkList(t *testing.T, m *Memory) {
	t.Helper()
	seen := map[int32]bool{}
	prev := int32(-1)
	for i := m.newest; i >= 0; i = m.jobs[i].older {
		require.False(t, seen[i], "slot %d twice", i)
		seen[i] = true
		assert.Equal(t, prev, m.jobs[i].newer)
		assert.Equal(t, i, m.index[m.jobs[i].key])
		prev = i
	}
	assert.Equal(t, prev, m.oldest)
	assert.Len(t, seen, len(m.index))
}

// Concurrent callers (the collector calls ConsumeLogs from several
// goroutines) lose no attempt and mix no jobs; run with -race.
func TestConcurrent(t *testing.T) {
	m := New(time.Minute, 64, 0)
	const workers, rounds = 16, 200
	var wg sync.WaitGroup
	given := make([]int, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job := uint64(w % 4) // four jobs, four workers each
			for r := range rounds {
				m.Attempted(job, 1, t0.Add(time.Duration(r)*time.Millisecond))
			}
			given[w] = m.Failed(uint64(100+w), t0, t0, false).Refused // a job of its own: nothing
		}()
	}
	wg.Wait()
	for w := range workers {
		assert.Equal(t, 0, given[w])
	}
	for job := range uint64(4) {
		assert.Equal(t, 4*rounds, m.Failed(job, t0, t0, false).Refused, "job %d", job)
	}
	checkList(t, m)
}

// Under eviction by concurrent callers the list and the index stay whole.
func TestConcurrentEviction(t *testing.T) {
	m := New(time.Minute, 8, 0)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 500 {
				job := uint64(w*1000 + r%20)
				m.Attempted(job, 1, t0)
				m.Failed(job, t0, t0, false)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 8, m.Len())
	assert.Len(t, m.jobs, 8)
	checkList(t, m)
}

// The count stays within its bound.
func TestCountBounded(t *testing.T) {
	m := New(time.Minute, 0, 0)
	for range 3 {
		m.Attempted(1, maxCount, t0)
	}
	assert.Equal(t, maxCount, m.Failed(1, t0, t0, false).Refused)
	m.Attempted(1, maxCount, t0)
	assert.Equal(t, maxCount, m.Failed(1, t0, t0, false).Refused)
}

// BenchmarkAttemptAndFailure is what a tagged attempt and a tagged failure
// of a known job, with its verdict, add to their records' cost.
func BenchmarkAttemptAndFailure(b *testing.B) {
	m := New(time.Minute, 0, 0)
	for job := range uint64(DefaultMaxJobs) {
		m.Attempted(job, 1, t0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		job := uint64(i % DefaultMaxJobs)
		m.Attempted(job, 1, t0)
		if m.Failed(job, t0, t0, false).Verdict == "" {
			m.Decided(job, "futile")
		}
	}
}
