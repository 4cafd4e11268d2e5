// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package attemptmemory remembers, per job, the allocation attempts (the GPU
// driver's refusals of an allocator's request, oom.WarningAllocationAttempt)
// that were logged before a failure of the job, so that a failure read one
// record at a time is given the refusals its job logged in earlier records:
// the input of oom.RetryVerdict's rule "driver refused before the failure".
//
// Which attempts a failure is given follows xlaoom explain's gathering:
//
//   - the attempts of a job since its last failure record are given to its
//     next failure record;
//   - a failure record logged less than the window (the incident window)
//     after the job's last failure record, or undated, states the same
//     failure again: it is given the attempts that failure took, with those
//     logged in between;
//   - a failure record logged the window or more after the last one is a new
//     failure: it is given only the attempts since the last one.
//
// The records of one failure also agree on its retry verdict: the first
// verdict the caller gives the failure (Decided) is handed to its later
// records (Failure.Verdict), which the caller gives them in place of their
// own, as explain gives a finding the verdict of its first record that has
// one. For the verdict a failure also ends, as in explain, at the record that
// holds the exception the program raised: the next failure record starts
// with no verdict, even less than the window later, for a program that
// caught one failure and then met another is not told the first one's
// verdict.
//
// Records count in the order they are reported, whatever their dates: an
// attempt reported after a failure counts for the job's next failure record,
// as a line after a failure does in explain. explain also ends a failure at
// the exception the program raised; for the attempts the window alone
// separates failures here, as the connector counts incidents, so a second
// failure less than the window after the first is given the first one's
// attempts too (but not its verdict).
//
// The memory is bounded: at most maxJobs jobs, the one used longest ago
// dropped first when a new one comes, and a job not reported for ttl (by the
// caller's clock) is forgotten. Its methods are safe for concurrent use; it
// starts no goroutine.
package attemptmemory // import "github.com/xlaoom/xlaoomprocessor/internal/attemptmemory"

import (
	"sync"
	"time"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Defaults: a job's attempts and failures arrive within its run; jobs that
// log attempts (GPU jobs beside another holder) are few, and an entry is a
// few dozen bytes.
const (
	DefaultMaxJobs = 4096
	DefaultTTL     = 24 * time.Hour
)

// maxCount bounds a count, so that no job's attempts overflow it.
const maxCount = 1 << 30

// Memory is the attempts per job. The zero value is not usable: see New.
type Memory struct {
	window, ttl time.Duration
	maxJobs     int

	mu    sync.Mutex
	index map[uint64]int32 // job key -> slot in jobs
	jobs  []job            // at most maxJobs
	// newest and oldest are the slots used last and longest ago (-1: none);
	// the slots form a list through job.newer and job.older.
	newest, oldest int32
}

// job is what is kept of one job.
type job struct {
	key uint64
	// pending counts the attempts since the job's last failure record;
	// taken those that its open failure was given.
	pending, taken int
	open           bool      // a failure record was seen (and not forgotten)
	verdict        string    // the open failure's verdict (Decided); "" when none
	raised         bool      // the last failure record held the raised exception
	failedAt       time.Time // the last failure record's date; zero: undated
	used           time.Time // when the caller last reported the job
	newer, older   int32
}

// New returns an empty memory: failures less than window apart are one,
// at most maxJobs jobs are kept and a job not reported for ttl is forgotten.
// Values below 1 take the defaults.
func New(window time.Duration, maxJobs int, ttl time.Duration) *Memory {
	if maxJobs < 1 {
		maxJobs = DefaultMaxJobs
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Memory{window: window, ttl: ttl, maxJobs: maxJobs, index: map[uint64]int32{}, newest: -1, oldest: -1}
}

// Attempted remembers n allocation attempts of the job key, reported at now.
func (m *Memory) Attempted(key uint64, n int, now time.Time) {
	if n <= 0 {
		return
	}
	m.mu.Lock()
	j := m.lookup(key, now)
	j.pending = min(j.pending+n, maxCount)
	m.mu.Unlock()
}

// Failure is what a failure record is given by the records of its job
// before it.
type Failure struct {
	// Refused is the count of the attempts the failure is given (see the
	// package comment).
	Refused int
	// Verdict is the verdict an earlier record of the same failure was given
	// (Decided); "" when none was.
	Verdict string
}

// Failed records a failure record of the job key dated at (zero: undated),
// reported at now, that holds the exception the program raised or not, and
// returns what the failure is given.
func (m *Memory) Failed(key uint64, at, now time.Time, raised bool) Failure {
	m.mu.Lock()
	defer m.mu.Unlock()
	j := m.lookup(key, now)
	if !j.open || !at.IsZero() && !j.failedAt.IsZero() && at.Sub(j.failedAt) >= m.window {
		j.taken, j.verdict = 0, "" // a new failure
	}
	if j.raised {
		j.verdict = "" // the last one ended at its exception: a new verdict
	}
	j.taken = min(j.taken+j.pending, maxCount)
	j.pending, j.open, j.raised = 0, true, raised
	if !at.IsZero() {
		j.failedAt = at
	}
	return Failure{Refused: j.taken, Verdict: j.verdict}
}

// Decided gives the failure of the job key's last failure record the
// verdict that record was given, unless an earlier record of the failure
// gave it one: the first verdict stands, as the first record was written
// with it. A job with no failure, or forgotten since, keeps nothing. Records
// of one job consumed at once by several callers may each find no verdict
// and decide their own: their order is not known either.
func (m *Memory) Decided(key uint64, verdict string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i, ok := m.index[key]; ok && m.jobs[i].open && m.jobs[i].verdict == "" {
		m.jobs[i].verdict = verdict
	}
}

// Settle is the verdict of a failure record of the job key that Failed
// gave given: the verdict an earlier record of its failure was given; else
// own, the verdict the record reads alone, or, when the job refused
// allocations before it, reread(given.Refused), the record read with them.
// A futile or may_help verdict becomes the failure's (Decided) for its later
// records; unknown is never handed on. The processor and xlaoom explain both
// decide a record's verdict here, so they agree.
func (m *Memory) Settle(key uint64, given Failure, own string, reread func(refused int) string) string {
	if given.Verdict != "" {
		return given.Verdict
	}
	verdict := own
	if given.Refused > 0 {
		verdict = reread(given.Refused)
	}
	if verdict == oom.RetryFutile || verdict == oom.RetryMayHelp {
		m.Decided(key, verdict)
	}
	return verdict
}

// Len is the number of jobs kept.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.index)
}

// lookup returns the entry of key, made the newest, empty when it was not
// kept or was not reported for ttl. m.mu is held.
func (m *Memory) lookup(key uint64, now time.Time) *job {
	if i, ok := m.index[key]; ok {
		j := &m.jobs[i]
		if now.Sub(j.used) >= m.ttl {
			*j = job{key: key, newer: j.newer, older: j.older}
		}
		j.used = now
		m.toNewest(i)
		return j
	}
	var i int32
	switch {
	case m.oldest >= 0 && (len(m.jobs) >= m.maxJobs || now.Sub(m.jobs[m.oldest].used) >= m.ttl):
		// Full, or the oldest was forgotten: its slot is reused.
		i = m.oldest
		delete(m.index, m.jobs[i].key)
		m.unlink(i)
	default:
		i = int32(len(m.jobs))
		m.jobs = append(m.jobs, job{})
	}
	m.jobs[i] = job{key: key, used: now, newer: -1, older: -1}
	m.index[key] = i
	m.link(i)
	return &m.jobs[i]
}

// toNewest moves slot i to the newest end of the list.
func (m *Memory) toNewest(i int32) {
	if m.newest == i {
		return
	}
	m.unlink(i)
	m.link(i)
}

// link puts slot i, not in the list, at its newest end.
func (m *Memory) link(i int32) {
	j := &m.jobs[i]
	j.newer, j.older = -1, m.newest
	if m.newest >= 0 {
		m.jobs[m.newest].newer = i
	}
	m.newest = i
	if m.oldest < 0 {
		m.oldest = i
	}
}

// unlink takes slot i out of the list.
func (m *Memory) unlink(i int32) {
	j := &m.jobs[i]
	if j.newer >= 0 {
		m.jobs[j.newer].older = j.older
	} else {
		m.newest = j.older
	}
	if j.older >= 0 {
		m.jobs[j.older].newer = j.newer
	} else {
		m.oldest = j.newer
	}
	j.newer, j.older = -1, -1
}
