// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

func TestAllocatorCause(t *testing.T) {
	for _, c := range []struct{ summary, want string }{
		{"1.50GiB, total free in pool 1.96GiB, largest free chunk usable by lower end 1.00GiB, unallocated bytes 0B", grammar.CauseFragmentation},
		{"1.50GiB, total free in pool 1.96GiB, largest free chunk usable by lower end 1.50GiB, unallocated bytes 0B", grammar.CauseExhaustion}, // a chunk fits: the failure was elsewhere
		{"1.50GiB, total free in pool 1.00GiB, largest free chunk usable by upper end 1.00GiB, unallocated bytes 6.00GiB", grammar.CauseExhaustion},
		{"1.50GiB, total free in pool 1.96GiB", ""}, // cut: no largest chunk
		{"1.50GiB, total free in pool x, largest free chunk usable by lower end 1.00GiB", ""},
	} {
		var a Allocator
		a.Read(summaryAnchor + "rounded request " + c.summary)
		var r grammar.Report
		a.Apply(&r)
		if r.Cause != c.want {
			t.Errorf("cause of %q = %q, want %q", c.summary, r.Cause, c.want)
		}
	}
}

// The figures mean the same whether the Stats block is read as BFC prints
// it, a line each, or flattened into one line with the failure.
func TestAllocatorFigures(t *testing.T) {
	summary := "I1126 11:17:36.432342    1915 bfc_allocator.cc:1477] Allocator memory summary: rounded request 1.00GiB, total free in pool 879.38MiB, " +
		"largest free chunk usable by lower end 616.00MiB, unallocated bytes 51.52GiB, pool size 7.87GiB, pool limit 59.38GiB"
	gib := func(s string) grammar.Size { return grammar.ParseSizeToken(s + "GiB") }
	for name, stats := range map[string]string{
		"lines":     "Stats: \nLimit:                        59.38GiB\nInUse:                         7.01GiB\nMaxInUse:                      7.50GiB\nLargestFreeBlock:            616.00MiB\n",
		"flattened": "Stats: Limit: 59.38GiB InUse: 7.01GiB MaxInUse: 7.50GiB LargestFreeBlock: 616.00MiB I1126 11:17:36 next record",
	} {
		var a Allocator
		a.Read(summary + "\n" + stats)
		var r grammar.Report
		a.Apply(&r)
		want := grammar.Report{
			Free:      grammar.AddSizes(grammar.ParseSizeToken("879.38MiB"), gib("51.52")), // what it could still hand out
			PoolLimit: gib("59.38"), InUse: gib("7.01"), LargestFree: grammar.ParseSizeToken("616.00MiB"), PoolSize: gib("7.87"),
			Cause: grammar.CauseExhaustion,
		}
		if r.Free != want.Free || r.PoolLimit != want.PoolLimit || r.InUse != want.InUse || r.LargestFree != want.LargestFree ||
			r.PoolSize != want.PoolSize || r.Cause != want.Cause || r.Used.Known {
			t.Errorf("%s: got %+v", name, r)
		}
	}
}
