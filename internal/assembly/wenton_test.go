// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOwnOutput(t *testing.T) {
	for _, tc := range []struct {
		line string
		own  bool
	}{
		{"[job] 11:18:32 batch of 400000 rows does not fit; halving", true},
		{"Epoch 3/10 - loss: 0.1234", true},
		{"I1126 11:18:32.123456 140000 train.py:42] step 5 loss 0.1", true}, // absl logging of the program
		{"", false},
		{"    x = jnp.ones((n, n))", false},
		{"W1126 11:18:32.684048    3226 bfc_allocator.cc:609] *_____", false},
		{"2026-11-26 11:18:32.684048: W tensorflow/core/common_runtime/bfc_allocator.cc:491] ****", false},
		{"If this is caused by memory fragmentation, the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' may improve the situation.", false},
		{"Current allocation summary follows.", false},
		{"Limit:                        59.38GiB", false},
		{"LargestFreeBlock:              1.00GiB", false},
		{"allocation 3: size 1073741824, maybe-live-out:", false},
		{"Total hbm usage >= 17.15G:", false},
		{"The above exception was the direct cause of the following exception:", false},
		{"--------------------", false},
		{"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.00GiB.", false},
	} {
		var b building
		b.readOutput(tc.line)
		assert.Equal(t, tc.own, b.ownAfter == 1, tc.line)
	}
}

func TestDying(t *testing.T) {
	for _, line := range []string{
		"Traceback (most recent call last):",
		`  File "/work/train.py", line 12, in <module>`,
		"*** SIGABRT received at time=1764155912 on cpu 3 ***",
		"PC: @     0x7f2a1c09eb2c  (unknown)  pthread_kill",
		"Fatal Python error: Aborted",
		"terminate called after throwing an instance of 'std::bad_alloc'",
		"Aborted (core dumped)",
		"Segmentation fault (core dumped)",
	} {
		assert.True(t, dying(line), line)
	}
	assert.False(t, dying("[job] step 4 loss 0.0000"))
}

// ownLines is n lines of a training loop's own output, one record.
func ownLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("[job] step " + strconv.Itoa(i) + " loss 0.0001\n")
	}
	return b.String()
}

func TestWentOn(t *testing.T) {
	start := func(a *Assembler) {
		r := recognize(t, bfcLine)
		_, closed := a.Statement(1, Statement{Report: &r, At: t0, Text: bfcLine}, t0, nil)
		require.Empty(t, closed)
	}
	t.Run("the program goes on: went_on at the next close", func(t *testing.T) {
		a := New(Config{Window: time.Minute})
		start(a)
		require.Empty(t, a.Evidence(1, ownLines(wentOnLines), t0, nil))
		closed := a.Flush(nil)
		require.Len(t, closed, 1)
		assert.Equal(t, ClosedWentOn, closed[0].Closed)
	})
	t.Run("it keeps going: went_on without waiting for a quiet stream", func(t *testing.T) {
		a := New(Config{Window: time.Minute})
		start(a)
		var closed []Failure
		for range wentOnEarly {
			closed = a.Evidence(1, ownLines(1), t0, closed)
		}
		require.Len(t, closed, 1)
		assert.Equal(t, ClosedWentOn, closed[0].Closed)
		assert.False(t, a.Open())
	})
	t.Run("a status raised after a few lines of its own: raised", func(t *testing.T) {
		a := New(Config{Window: time.Minute})
		start(a)
		closed := a.Evidence(1, ownLines(wentOnLines), t0, nil)
		closed = a.Evidence(1, raisedLine, t0, closed)
		require.Len(t, closed, 1)
		assert.Equal(t, ClosedRaised, closed[0].Closed)
	})
	t.Run("a fatal signal, then lines of its own: the program died", func(t *testing.T) {
		a := New(Config{Window: time.Minute})
		start(a)
		closed := a.Evidence(1, "*** SIGABRT received at time=1764155912 on cpu 3 ***\n"+ownLines(wentOnEarly), t0, nil)
		assert.Empty(t, closed)
		closed = a.Flush(closed)
		require.Len(t, closed, 1)
		assert.Equal(t, ClosedFlush, closed[0].Closed)
	})
	t.Run("fewer lines than the rule: the failure stands", func(t *testing.T) {
		a := New(Config{Window: time.Minute})
		start(a)
		closed := a.Flush(a.Evidence(1, ownLines(wentOnLines-1), t0, nil))
		require.Len(t, closed, 1)
		assert.Equal(t, ClosedFlush, closed[0].Closed)
	})
}
