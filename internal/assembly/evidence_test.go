// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

func TestEvidenceStatsAndSummary(t *testing.T) {
	var e evidence
	e.read("I1126 11:16:43.148614     786 bfc_allocator.cc:1508] Stats: \nLimit:                        59.38GiB\n" +
		"InUse:                         6.62MiB\nMaxInUse:                    105.05MiB\nLargestFreeBlock:             18.62GiB\n")
	e.read("I1126 11:16:43.148605     786 bfc_allocator.cc:1477] Allocator memory summary: rounded request 23.28GiB, " +
		"total free in pool 18.63GiB, largest free chunk usable by lower end 18.62GiB, unallocated bytes 40.75GiB, pool size 18.64GiB, pool limit 59.38GiB")
	gib := func(s string) oom.Size { return oom.ParseSize(s + "GiB") }
	a := e.allocator
	assert.Equal(t, gib("59.38"), a.PoolLimit)
	assert.Equal(t, oom.ParseSize("6.62MiB"), a.InUse, "MaxInUse is not InUse")
	assert.Equal(t, gib("18.62"), a.LargestFree)
	assert.Equal(t, gib("18.64"), a.PoolSize)
	assert.Equal(t, gib("18.63"), a.PoolFree)

	// TensorFlow's older Stats print exact bytes.
	var tf evidence
	tf.read("2019-03-01 10:00:00.000000: I tensorflow/core/common_runtime/bfc_allocator.cc:678] Stats: \n" +
		"Limit:                 11330676327\nInUse:                 11324758272\nMaxInUse:              11324760320\n")
	assert.Equal(t, oom.KnownSize(11330676327), tf.allocator.PoolLimit)
	assert.Equal(t, oom.KnownSize(11324758272), tf.allocator.InUse)
}

func TestEvidenceHolders(t *testing.T) {
	var e evidence
	for _, line := range []string{
		"I1126 11:18:16.277854    2951 bfc_allocator.cc:1447] InUse at 302000100 of size 256 tag lower allocation_annotation xla.execute{executable=jit_step} next 8",
		"I1126 11:18:16.277864    2951 bfc_allocator.cc:1447] InUse at 30201e600 of size 524288 tag lower allocation_annotation xla.execute{executable=jit_broadcast_in_dim} next 14",
		"I1126 11:18:16.277865    2951 bfc_allocator.cc:1447] InUse at 30209e600 of size 1048576 tag lower allocation_annotation xla.execute{executable=jit_broadcast_in_dim} next 15",
		"I1126 11:18:16.277866    2951 bfc_allocator.cc:1447] Free  at 30219e600 of size 4096 next 16",
		"I1126 11:18:16.277867    2951 bfc_allocator.cc:1447] InUse at 30219f600 of size 4096 next 17", // no annotation
		"I1126 11:18:16.277868    2951 bfc_allocator.cc:1447] InUse at 30219f600 of size x allocation_annotation xla.execute{executable=bad} next 18",
	} {
		e.read(line)
	}
	assert.Equal(t, []Holder{{Program: "jit_broadcast_in_dim", Bytes: 1572864, Chunks: 2}, {Program: "jit_step", Bytes: 256, Chunks: 1}}, e.sortedHolders())

	var many evidence
	for i := range oom.MaxHolders + 4 {
		many.read(fmt.Sprintf("InUse at 3020 of size %d tag lower allocation_annotation xla.execute{executable=jit_%d} next 1", i, i))
	}
	assert.Len(t, many.sortedHolders(), oom.MaxHolders, "bounded")
}

func TestUserFrame(t *testing.T) {
	tb := `Traceback (most recent call last):
  File "/home/me/train.py", line 380, in <module>
    sys.exit(main())
  File "<frozen runpy>", line 88, in _run_code
  File "/home/me/model/step.py", line 51, in update
    params = apply(params)
  File "/usr/lib/python3.11/contextlib.py", line 81, in inner
  File "/opt/venv/lib/python3.12/site-packages/jax/_src/pjit.py", line 1121, in cache_miss
  File "/src/jax/jax/_src/interpreters/pxla.py", line 1290, in __call__
jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.00GiB.`
	s, ok := UserFrame(tb)
	assert.True(t, ok)
	assert.Equal(t, oom.Site{File: "/home/me/model/step.py", Line: 51, Function: "update"}, s)

	for _, none := range []string{
		"",
		`  File "/opt/venv/lib/python3.12/dist-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute`,
		`x = 'File "a.py", line 3, in f'`, // not a frame: text before it
		`  File "a.py", line zero, in f`,
	} {
		_, ok := UserFrame(none)
		assert.False(t, ok, none)
	}
}

// The allocator's summary gives a failure the same figures, and so the same
// verdict, whether it shares the allocator's record or arrives in its own,
// as the agent's multiline rules deliver it.
func TestSummaryVerdictWhateverTheSplit(t *testing.T) {
	bfc := "W1126 11:17:36.432126    1915 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824) from the lower end requested by op "
	summary := "I1126 11:17:36.432342    1915 bfc_allocator.cc:1477] Allocator memory summary: rounded request 1.00GiB, total free in pool 879.38MiB, " +
		"largest free chunk usable by lower end 616.00MiB, unallocated bytes 51.52GiB, pool size 7.87GiB, pool limit 59.38GiB"
	var verdicts []oom.Report
	for _, records := range [][]string{{bfc + "\n" + summary}, {bfc, summary}} {
		a := New(Config{Window: time.Minute})
		closed := a.Flush(feed(a, 1, t0, nil, records...))
		require.Len(t, closed, 1)
		verdicts = append(verdicts, closed[0].Report)
	}
	joined, split := verdicts[0], verdicts[1]
	assert.Equal(t, oom.RetryMayHelp, joined.Retry, "the pool could not grow: free counts the unclaimed bytes")
	assert.Equal(t, joined.Retry, split.Retry)
	assert.Equal(t, joined.Free, split.Free)
	assert.Equal(t, joined.Cause, split.Cause)
}
