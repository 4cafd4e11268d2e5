// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// TestAllocatorDump: the BFC dump's memory summary settles the cause and its
// chunk annotations name the executable holding the most memory, in real
// captures (testdata/real) and in composed dumps of the other shapes the
// allocator prints (testdata/allocator_dump: the upper end of a spatially
// partitioned pool, a pool that could not grow).
func TestAllocatorDump(t *testing.T) {
	for _, c := range []struct {
		path, cause, holder string
		holderSize          int64
		advice              string
	}{
		// Real: 1.96GiB free in the pool, no chunk of 1.50GiB.
		{filepath.Join(realDir, "mem_fraction_fragmented.stderr.txt"), grammar.CauseFragmentation, "jit_broadcast_in_dim", 2147483648, "no block holds"},
		// Real: the request is larger than the whole pool; the failing program
		// (jit_temps_exceed_memory) holds 256 bytes, its input 1000192.
		{filepath.Join(realDir, "jit_temps.stderr.txt"), grammar.CauseExhaustion, "jit_broadcast_in_dim", 1000192, ""},
		// Real: nothing was claimed yet (pool size 0B): no chunks, no holder.
		{filepath.Join(realDir, "device_put.stderr.txt"), grammar.CauseExhaustion, "", 0, ""},
		{filepath.Join("testdata", "allocator_dump", "upper_end_fragmented.txt"), grammar.CauseFragmentation, "jit_init_params", 4294967296, "no block holds"},
		// 7.00GiB "free" counting the unclaimed bytes, but claiming them failed.
		{filepath.Join("testdata", "allocator_dump", "growth_failed.txt"), grammar.CauseExhaustion, "jit_embed", 1073741824, "could not grow"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			data, err := os.ReadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := Recognize(string(data))
			if !ok {
				t.Fatal("not recognised")
			}
			if r.Cause != c.cause {
				t.Errorf("Cause = %q, want %q", r.Cause, c.cause)
			}
			if r.MemoryHolder != c.holder || (c.holder != "" && r.MemoryHolderSize != grammar.KnownSize(c.holderSize)) {
				t.Errorf("holder = %q %+v, want %q %d", r.MemoryHolder, r.MemoryHolderSize, c.holder, c.holderSize)
			}
			if c.advice != "" && !strings.Contains(strings.Join(r.Remediation, "\n"), c.advice) {
				t.Errorf("advice lacks %q: %q", c.advice, r.Remediation)
			}
		})
	}
}

// A chunk line cut before its size, or an annotation without a chunk, adds
// nothing; the program printed by the status is never replaced.
func TestHolderNeedsWholeChunkLines(t *testing.T) {
	flat := "InUse at 7f00 of size tag lower allocation_annotation xla.execute{executable=jit_a} next 1 " +
		"allocation_annotation xla.execute{executable=jit_b} next 2 " +
		"InUse at 7f10 of size 512 tag lower allocation_annotation xla.execute{executable=jit_c} next 3"
	var a details.Allocator
	a.Read(flat)
	if hs := a.Holders(); len(hs) != 1 || hs[0] != (details.Holder{Program: "jit_c", Bytes: 512, Chunks: 1}) {
		t.Errorf("holders = %+v", hs)
	}
	r, ok := Recognize("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.50GiB with allocator GPU_0_bfc on device 0. [executable_name='jit_step']\n" +
		"I0618 14:02:11.503488   51207 bfc_allocator.cc:1447] InUse at 7f3a40000000 of size 1073741824 tag lower allocation_annotation xla.execute{executable=jit_init} next 1")
	if !ok || r.Program != "jit_step" || r.MemoryHolder != "jit_init" {
		t.Errorf("got %v %q %q", ok, r.Program, r.MemoryHolder)
	}
}
