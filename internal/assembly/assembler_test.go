// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Real statements of one failure (oom/testdata/jobs/shared_gpu_backoff_then_oom.log).
const (
	bfcLine = "W1126 11:16:43.148484     786 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 23.28GiB (rounded to 25000000000) from the lower end requested by op \n" +
		"If this is caused by memory fragmentation, the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' may improve the situation.\nCurrent allocation summary follows."
	raisedLine = "W1126 11:16:43.148619     786 bfc_allocator.cc:609] *____\nTraceback (most recent call last):\n" +
		"  File \"/home/me/train.py\", line 194, in run_job\n    big_output(1.0).block_until_ready()\n" +
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 23.28GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error=''] [executable_name='jit_activations']"
	attemptLine = "E1126 11:16:43.148424     786 cuda_executor.cc:1365] [0] Failed to allocate device memory of 26.73GiB (28706263040 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory"
	statsLine   = "I1126 11:16:43.148614     786 bfc_allocator.cc:1508] Stats: \nLimit:                        59.38GiB\nInUse:                         6.62MiB"
)

var t0 = time.Date(2026, 11, 26, 11, 16, 43, 0, time.UTC)

func feed(a *Assembler, key uint64, at time.Time, closed []Failure, texts ...string) []Failure {
	for _, text := range texts {
		closed = feedText(a, key, text, at, at, closed)
	}
	return closed
}

func TestOneFailureClosesAtRaisedStatus(t *testing.T) {
	a := New(Config{Window: time.Minute})
	closed := feed(a, 1, t0, nil, attemptLine, bfcLine, statsLine)
	assert.Empty(t, closed, "open until its raised status")
	assert.True(t, a.Open())
	closed = feed(a, 1, t0, closed, raisedLine)
	require.Len(t, closed, 1)
	assert.False(t, a.Open())
	f := closed[0]
	assert.Equal(t, ClosedRaised, f.Closed)
	assert.Equal(t, 2, f.Statements)
	assert.Equal(t, 3, f.Records, "the two statements and the stats between them; the attempt before is counted in Refused")
	assert.Equal(t, 1, f.Attempts)
	assert.Equal(t, "jit_activations", f.Report.Program, "from the raised status")
	assert.Equal(t, oom.KnownSize(25000000000), f.Report.Requested)
	assert.Equal(t, oom.ParseSize("59.38GiB"), f.Report.PoolLimit, "from Stats")
	assert.Equal(t, oom.Site{File: "/home/me/train.py", Line: 194, Function: "run_job"}, f.Report.Site)
	assert.Equal(t, oom.RetryMayHelp, f.Report.Retry)
	assert.Equal(t, "driver refused before the failure", f.Decision.Rule)
	assert.Equal(t, oom.ActionFreeHeldMemory, f.Report.Action)
	assert.Contains(t, f.Report.Remediation[0], "nvidia-smi")
	assert.Equal(t, t0, f.First)
}

func TestStatementsShareIDAndVerdict(t *testing.T) {
	a := New(Config{Window: time.Minute})
	a.Attempted(1, 1, t0, nil)
	r1, r2 := recognize(t, bfcLine), recognize(t, raisedLine)
	s1, closed := a.Statement(1, Statement{Report: &r1, At: t0, Text: bfcLine}, t0, nil)
	s2, closed := a.Statement(1, Statement{Report: &r2, At: t0.Add(time.Second), Text: raisedLine}, t0, closed)
	require.Len(t, closed, 1)
	assert.Equal(t, s1.ID, s2.ID)
	assert.Equal(t, closed[0].ID, s1.ID)
	assert.Equal(t, oom.RetryMayHelp, s1.Verdict, "the refusal before it")
	assert.Equal(t, s1.Verdict, s2.Verdict)

	// The next statement opens a new failure with a new id.
	s3, _ := a.Statement(1, Statement{Report: &r1, At: t0.Add(2 * time.Second), Text: bfcLine}, t0, nil)
	assert.NotEqual(t, s1.ID, s3.ID)
}

func TestStreamsAreApart(t *testing.T) {
	// 64 hosts print one failure: 64 streams, 64 failures, one each.
	a := New(Config{Window: time.Minute})
	var closed []Failure
	for host := range uint64(64) {
		closed = feed(a, host, t0, closed, bfcLine)
	}
	for host := range uint64(64) {
		closed = feed(a, host, t0, closed, raisedLine)
	}
	require.Len(t, closed, 64)
	for _, f := range closed {
		assert.Equal(t, 2, f.Statements)
	}
}

func TestWindowSeparatesFailures(t *testing.T) {
	a := New(Config{Window: time.Minute})
	closed := feed(a, 1, t0, nil, bfcLine)
	closed = feed(a, 1, t0.Add(30*time.Second), closed, bfcLine)
	assert.Empty(t, closed, "within the window: one failure")
	closed = feed(a, 1, t0.Add(2*time.Minute), closed, bfcLine)
	require.Len(t, closed, 1)
	assert.Equal(t, ClosedNext, closed[0].Closed)
	assert.Equal(t, 2, closed[0].Statements)
}

func TestQuietInterval(t *testing.T) {
	a := New(Config{Window: time.Minute, Quiet: 5 * time.Second})
	r := recognize(t, bfcLine)
	_, closed := a.Statement(1, Statement{Report: &r, At: t0, Text: bfcLine}, t0, nil)
	_, closed = a.Statement(2, Statement{Report: &r, At: t0, Text: bfcLine}, t0.Add(3*time.Second), closed)
	closed = a.Expire(t0.Add(4*time.Second), closed)
	assert.Empty(t, closed)
	closed = a.Evidence(1, statsLine, t0.Add(4*time.Second), closed) // stream 1 is not quiet
	closed = a.Expire(t0.Add(8*time.Second), closed)
	require.Len(t, closed, 1)
	assert.Equal(t, uint64(2), closed[0].Stream)
	assert.Equal(t, ClosedQuiet, closed[0].Closed)
	closed = a.Expire(t0.Add(9*time.Second), nil)
	require.Len(t, closed, 1)
	assert.Equal(t, uint64(1), closed[0].Stream)
	assert.Equal(t, oom.ParseSize("6.62MiB"), closed[0].Report.InUse)
	assert.False(t, a.Open())
}

func TestBounds(t *testing.T) {
	a := New(Config{Window: time.Minute, MaxRecords: 3, MaxStreams: 2})
	r := recognize(t, bfcLine)
	_, closed := a.Statement(1, Statement{Report: &r, At: t0, Text: bfcLine}, t0, nil)
	closed = a.Evidence(1, statsLine, t0, closed)
	closed = a.Evidence(1, statsLine, t0, closed)
	require.Len(t, closed, 1)
	assert.Equal(t, ClosedBound, closed[0].Closed)

	_, closed = a.Statement(2, Statement{Report: &r, At: t0, Text: bfcLine}, t0, nil)
	_, closed = a.Statement(3, Statement{Report: &r, At: t0, Text: bfcLine}, t0, closed)
	_, closed = a.Statement(4, Statement{Report: &r, At: t0, Text: bfcLine}, t0, closed)
	require.Len(t, closed, 1, "the stream used longest ago is evicted, its failure closed")
	assert.Equal(t, ClosedEvicted, closed[0].Closed)
	assert.Equal(t, uint64(2), closed[0].Stream)
	assert.Equal(t, int64(1), a.Evicted(), "stream 2: stream 1 held nothing once its failure closed")
	assert.Equal(t, int64(0), a.Evicted())
	assert.Len(t, a.Flush(nil), 2)
	assert.False(t, a.Open())
}

func TestEvidenceWithoutFailureIsIgnored(t *testing.T) {
	a := New(Config{Window: time.Minute})
	assert.Empty(t, a.Evidence(1, raisedLine, t0, nil))
	assert.Empty(t, a.Flush(nil))
}

func TestPendingAttemptsOutliveQuiet(t *testing.T) {
	// The pool's back-off is logged at start-up; the failure comes hours later.
	a := New(Config{Window: time.Minute, Quiet: 5 * time.Second, TTL: 24 * time.Hour})
	a.Attempted(1, 11, t0, nil)
	a.Expire(t0.Add(time.Hour), nil)
	r := recognize(t, bfcLine)
	step, _ := a.Statement(1, Statement{Report: &r, At: t0.Add(2 * time.Hour), Text: bfcLine}, t0.Add(2*time.Hour), nil)
	assert.Equal(t, 11, step.Attempts)
	a.Expire(t0.Add(30*time.Hour), nil)
	assert.Zero(t, a.streams.Len(), "forgotten after the TTL")
}

func recognize(t *testing.T, text string) oom.Report {
	t.Helper()
	r, ok := oom.Recognize(text)
	require.True(t, ok, text)
	return r
}

// A TensorFlow 2 job whose own tensors fill its pool, composed in the
// forms of tensorflow/core/common_runtime/bfc_allocator.cc, op_kernel.cc and
// the raw-byte AllocatorStats of TF 2.x (the figures are illustrative): no
// statement alone shows it, and the whole failure shows it only for a pool
// the same on every run. TensorFlow's is the memory free at start less a
// reserve, and no line says what was free: unknown, for want of the basis.
func TestTensorFlowPoolFilledWantsItsBasis(t *testing.T) {
	recs := []string{
		"2021-03-02 10:11:12.345678: W tensorflow/core/common_runtime/bfc_allocator.cc:456] Allocator (GPU_0_bfc) ran out of memory trying to allocate 3.00GiB (rounded to 3221225472)requested by op AddV2",
		"2021-03-02 10:11:12.345700: I tensorflow/core/common_runtime/bfc_allocator.cc:1040] InUse at 7f1e2c000000 of size 3221225472 next 18",
		"2021-03-02 10:11:12.345800: I tensorflow/core/common_runtime/bfc_allocator.cc:1055] Stats: \nLimit:                     10990990541\nInUse:                     10273951744\n" +
			"MaxInUse:                  10273951744\nNumAllocs:                        3232\nMaxAllocSize:               3221225472\nReserved:                            0\nPeakReserved:                        0\nLargestFreeBlock:                    0\n",
		"2021-03-02 10:11:12.345900: W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at cwise_ops_common.cc:82 : Resource exhausted: OOM when allocating tensor with shape[1024,1024,768] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
		"Traceback (most recent call last):\n  File \"/home/me/train.py\", line 41, in <module>\n    model.fit(x, y, batch_size=512)\n" +
			"  File \"/usr/local/lib/python3.8/dist-packages/tensorflow/python/keras/engine/training.py\", line 1100, in fit\n" +
			"tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[1024,1024,768] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:AddV2]",
	}
	// The traceback's lines join the record before them, as the agent groups them.
	recs[3] += "\n" + recs[4]
	fs := assemble(recs[:4])
	require.Len(t, fs, 1)
	f := fs[0]
	for i, text := range recs[:4] {
		if r, ok := oom.Recognize(text); ok {
			assert.NotEqual(t, oom.RetryFutile, oom.Judge(&r, oom.Facts{}).Verdict, "record %d alone", i)
		}
	}
	assert.Equal(t, ClosedRaised, f.Closed)
	assert.Equal(t, oom.Decision{Verdict: oom.RetryUnknown, Rule: "own pool filled", Missing: oom.MissingPoolBasis}, f.Decision)
	assert.Equal(t, oom.FrameworkTensorFlow, f.Report.Framework, "its exception's type")
	for _, step := range f.Report.Remediation {
		for _, jax := range []string{"XLA_PYTHON_CLIENT", "jax.", "donate_argnums"} {
			assert.NotContains(t, step, jax, "a TensorFlow program advised with JAX's knob")
		}
	}
	assert.Equal(t, oom.KnownSize(10273951744), f.Report.InUse)
	assert.Equal(t, oom.Site{File: "/home/me/train.py", Line: 41, Function: "<module>"}, f.Report.Site)
}

// The failures a job's streams open within a window share the time their
// incident is bucketed by; an undated one takes its arrival.
func TestOpenedIsTheJobIncidents(t *testing.T) {
	a := New(Config{Window: time.Minute})
	r, _ := oom.Recognize(bfcLine)
	open := func(key, job uint64, at, now time.Time) time.Time {
		step, _ := a.Statement(key, Statement{Report: &r, At: at, Job: job}, now, nil)
		return step.Opened
	}
	edge := t0.Truncate(time.Minute).Add(time.Minute)
	first := edge.Add(-time.Second)
	assert.Equal(t, first, open(1, 7, time.Time{}, first), "undated: its arrival")
	assert.Equal(t, first, open(1, 7, time.Time{}, edge.Add(time.Second)), "a later statement of the failure")
	assert.Equal(t, first, open(2, 7, edge.Add(time.Second), edge), "another host of the job, past the edge")
	assert.Equal(t, edge.Add(time.Second), open(3, 8, edge.Add(time.Second), edge), "another job")
	assert.Equal(t, edge.Add(time.Hour), open(4, 7, edge.Add(time.Hour), edge), "the job's next incident")
	assert.Equal(t, edge, open(5, 0, edge, edge), "a stream of no job")
}

// Fed line by line, a traceback's head does not close the failure: its
// exception line, after the frames, does.
func TestTracebackHeadAloneKeepsFailureOpen(t *testing.T) {
	a := New(Config{Window: time.Minute})
	closed := feed(a, 1, t0, nil, bfcLine, "Traceback (most recent call last):", "  File \"/home/me/train.py\", line 194, in run_job")
	assert.Empty(t, closed)
	closed = feed(a, 1, t0, closed, "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 23.28GiB with allocator GPU_0_bfc on device 0.")
	require.Len(t, closed, 1)
	assert.Equal(t, ClosedRaised, closed[0].Closed)
	assert.Equal(t, 2, closed[0].Statements)
}
