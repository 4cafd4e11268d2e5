// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// TestAllocatorDump: the BFC dump's summary settles the cause and its
// chunk annotations name the executable that holds the most memory.
func TestAllocatorDump(t *testing.T) {
	for _, c := range []struct {
		dir, file, cause, holder string
		holderSize               int64
	}{
		// 1.96GiB free in the pool, no chunk of 1.50GiB
		{"real", "mem_fraction_fragmented.stderr.txt", grammar.CauseFragmentation, "jit_broadcast_in_dim", 2147483648},
		// the request is larger than the whole pool
		{"real", "jit_temps.stderr.txt", grammar.CauseExhaustion, "jit_broadcast_in_dim", 1000192},
		// pool size 0B: no chunks, no holder
		{"real", "device_put.stderr.txt", grammar.CauseExhaustion, "", 0},
		// two 2 GiB chunks of jit_init_params; 6 GiB free, no 3 GiB chunk at the upper end
		{"allocator_dump", "upper_end_fragmented.txt", grammar.CauseFragmentation, "jit_init_params", 4294967296},
		// 7 GiB "free" with the unclaimed bytes, but claiming them failed
		{"allocator_dump", "growth_failed.txt", grammar.CauseExhaustion, "jit_embed", 1073741824},
	} {
		t.Run(c.file, func(t *testing.T) {
			var r grammar.Report
			readDump(&r, logtext.WrapVocabulary(nil).Flatten(fixture(t, c.dir, c.file)))
			if r.Cause != c.cause {
				t.Errorf("Cause = %q, want %q", r.Cause, c.cause)
			}
			want := grammar.Size{}
			if c.holder != "" {
				want = grammar.KnownSize(c.holderSize)
			}
			if r.MemoryHolder != c.holder || r.MemoryHolderSize != want {
				t.Errorf("holder %q %+v, want %q %+v", r.MemoryHolder, r.MemoryHolderSize, c.holder, want)
			}
		})
	}
}

// A cause already read is kept, and so is a holder that holds more than the dump's largest.
func TestAllocatorDumpKeeps(t *testing.T) {
	r := grammar.Report{Cause: grammar.CauseExhaustion, MemoryHolder: "jit_step", MemoryHolderSize: grammar.KnownSize(8 << 30)}
	readDump(&r, logtext.WrapVocabulary(nil).Flatten(fixture(t, "allocator_dump", "upper_end_fragmented.txt")))
	if r.Cause != grammar.CauseExhaustion || r.MemoryHolder != "jit_step" {
		t.Errorf("got %q %q", r.Cause, r.MemoryHolder)
	}
}

// EachChunk reads every in-use chunk line that names its executable.
func TestEachChunk(t *testing.T) {
	got := map[string]int64{}
	n := 0
	EachChunk(logtext.WrapVocabulary(nil).Flatten(fixture(t, "allocator_dump", "upper_end_fragmented.txt")), func(p string, bytes int64) {
		got[p] += bytes
		n++
	})
	want := map[string]int64{"jit_init_rng": 256, "jit_init_params": 4294967296, "jit_train_step": 2147483648, "jit_eval_step": 2147483648}
	if n != 5 || len(got) != len(want) {
		t.Fatalf("%d chunks: %v", n, got)
	}
	for p, bytes := range want {
		if got[p] != bytes {
			t.Errorf("%s: %d bytes, want %d", p, got[p], bytes)
		}
	}
}

// readDump reads text's dump into r as a statement's record does.
func readDump(r *grammar.Report, text string) {
	var a Allocator
	a.Read(text)
	a.Apply(r)
}
