// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package stage

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// attempt replays a real job log as one stream, its records (the agent's
// grouping: a header starts one) dated by their headers shifted by offset.
type attempt struct {
	log              string
	resource, stream uint64
	offset           time.Duration
}

const repeatJob = 77 // the job key of every attempt below

func (a attempt) records(t *testing.T) []string {
	t.Helper()
	return agentRecords(jobLog(t, a.log))
}

// replay feeds the attempts' records to one stage, interleaved record by
// record, and returns the failures in the order they closed.
func replay(t *testing.T, attempts ...attempt) []assembly.Failure {
	s := newStage()
	feeders := make([]*feeder, len(attempts))
	recs := make([][]string, len(attempts))
	for i, a := range attempts {
		feeders[i] = &feeder{s: s, in: Input{Resource: a.resource, Stream: a.stream, Job: repeatJob, RepeatJob: repeatJob}}
		recs[i] = a.records(t)
	}
	var closed []assembly.Failure
	for n := 0; ; n++ {
		more := false
		for i, a := range attempts {
			if n >= len(recs[i]) {
				continue
			}
			more = true
			f := feeders[i]
			if at, ok := oom.HeaderTime(recs[i][n]); ok {
				f.in.At = at.Add(a.offset)
				f.in.Now = f.in.At
			}
			f.record(recs[i][n], Marks{})
			closed, f.closed = append(closed, f.closed...), f.closed[:0]
		}
		if !more {
			break
		}
	}
	return append(closed, s.Assembler.Flush(nil)...)
}

const failingJob = "autotune_in_training_step.log" // fails the same way on every run (its manifest)

// TestRepeatAcrossNodes: two attempts of one Kubernetes Job, each its own
// pod on its own node (two resources, two streams), routed to one
// collector by the job as docs/incidents.md says: the second is futile by
// the repeat rule, the first is as it was alone.
func TestRepeatAcrossNodes(t *testing.T) {
	alone := replay(t, attempt{log: failingJob, resource: 1, stream: 1})
	require.Len(t, alone, 1)
	fs := replay(t, attempt{log: failingJob, resource: 1, stream: 1},
		attempt{log: failingJob, resource: 2, stream: 2, offset: 10 * time.Minute})
	require.Len(t, fs, 2)
	assert.Equal(t, alone[0].Decision, fs[0].Decision, "the first attempt as it was")
	assert.Equal(t, oom.Decision{Verdict: oom.RetryFutile, Rule: "repeat"}, fs[1].Decision)
	assert.Equal(t, 1, fs[1].Facts.Earlier)
}

// TestRepeatInOneFile: a Slurm job requeued appends its second attempt to
// the same file: one stream of two processes.
func TestRepeatInOneFile(t *testing.T) {
	fs := replay(t, attempt{log: failingJob, resource: 1, stream: 1})
	fs = append(fs, replayAfter(t, attempt{log: failingJob, resource: 1, stream: 1, offset: 30 * time.Minute}, fs)...)
	require.Len(t, fs, 2)
	assert.Equal(t, oom.Decision{Verdict: oom.RetryFutile, Rule: "repeat"}, fs[1].Decision)
}

// replayAfter replays a into the stage that gave before, as one file read on.
func replayAfter(t *testing.T, a attempt, before []assembly.Failure) []assembly.Failure {
	t.Helper()
	s := newStage()
	f := &feeder{s: s, in: Input{Resource: a.resource, Stream: a.stream, Job: repeatJob, RepeatJob: repeatJob}}
	for _, b := range []attempt{{log: a.log, resource: a.resource, stream: a.stream}, a} {
		for _, rec := range b.records(t) {
			if at, ok := oom.HeaderTime(rec); ok {
				f.in.At = at.Add(b.offset)
				f.in.Now = f.in.At
			}
			f.record(rec, Marks{})
		}
	}
	closed := s.Assembler.Flush(f.closed)
	require.Len(t, closed, len(before)+1)
	return closed[len(before):]
}

// TestNoRepeatAcrossHostsOfOneAttempt: 64 workers failing together are one
// attempt; two hosts of one attempt give no repeat.
func TestNoRepeatAcrossHostsOfOneAttempt(t *testing.T) {
	fs := replay(t, attempt{log: failingJob, resource: 1, stream: 1},
		attempt{log: failingJob, resource: 2, stream: 2, offset: 2 * time.Second})
	require.Len(t, fs, 2)
	for _, f := range fs {
		assert.NotEqual(t, "repeat", f.Decision.Rule)
		assert.Zero(t, f.Facts.Earlier)
	}
}

// TestNoRepeatWithoutJob: without a job's name the rule does not apply.
func TestNoRepeatWithoutJob(t *testing.T) {
	s := newStage()
	var closed []assembly.Failure
	for i, offset := range []time.Duration{0, time.Hour} {
		f := &feeder{s: s, in: Input{Resource: uint64(i + 1), Stream: uint64(i + 1)}}
		for _, rec := range (attempt{log: failingJob}).records(t) {
			if at, ok := oom.HeaderTime(rec); ok {
				f.in.At, f.in.Now = at.Add(offset), at.Add(offset)
			}
			f.record(rec, Marks{})
		}
		closed = append(closed, f.closed...)
	}
	require.Len(t, closed, 2)
	assert.Zero(t, closed[1].Facts.Earlier)
	assert.NotEqual(t, "repeat", closed[1].Decision.Rule)
}
