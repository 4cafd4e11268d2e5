// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// The BFC allocator's dump (2026 builds, at INFO after "Allocator (...) ran
// out of memory trying to allocate ..."):
//
//	Allocator memory summary: rounded request 1.50GiB, total free in pool 1.96GiB,
//	largest free chunk usable by lower end 1.00GiB, unallocated bytes 0B, pool size 3.96GiB, pool limit 3.96GiB
//	InUse at 302000200 of size 1073741824 tag lower allocation_annotation xla.execute{executable=jit_step} next 3
//
// The summary settles the cause (unclaimed bytes do not count: claiming
// them failed too). The chunk annotations tell who holds the memory, not
// which program failed: in real captures the live arrays of earlier
// programs hold most of the pool. So they fill MemoryHolder, never Program.
const (
	summaryAnchor    = "Allocator memory summary: rounded request "
	annotationAnchor = " allocation_annotation xla.execute{executable="
	maxHolders       = 16 // executables tallied from one dump
)

// ReadAllocatorDump reads the cause and the memory holder from a BFC dump
// in flat, leaving a cause already set alone.
func ReadAllocatorDump(r *grammar.Report, flat string) {
	if i := strings.Index(flat, summaryAnchor); i >= 0 && r.Cause == "" {
		r.Cause = summaryCause(flat[i+len(summaryAnchor):])
	}
	if r.MemoryHolder == "" && strings.Contains(flat, annotationAnchor) {
		r.MemoryHolder, r.MemoryHolderSize = LargestHolder(flat)
	}
}

// summaryCause reads "R, total free in pool F, largest free chunk usable by
// <end> end L, ..." and returns the cause, or "" when a figure is missing.
func summaryCause(s string) string {
	tok, _, _ := strings.Cut(s, ",")
	request := grammar.ParseSizeToken(tok)
	free := grammar.ParseSizeToken(summaryField(s, "total free in pool "))
	_, after, ok := strings.Cut(s, "largest free chunk usable by ")
	if !ok {
		return ""
	}
	if _, after, ok = strings.Cut(after, " end "); !ok {
		return ""
	}
	tok, _, _ = strings.Cut(after, ",")
	return grammar.PoolCause(request, free, grammar.ParseSizeToken(tok))
}

// LargestHolder sums the in-use chunks of the dump by executable and returns
// the one with the most bytes, the first in the dump on a tie.
func LargestHolder(flat string) (string, grammar.Size) {
	var names [maxHolders]string
	var bytes [maxHolders]int64
	n := 0
	EachChunk(flat, func(name string, size int64) {
		k := slices.Index(names[:n], name)
		if k < 0 {
			if n == maxHolders {
				return
			}
			k, names[n] = n, name
			n++
		}
		bytes[k] += size
	})
	best := -1
	for k := range n {
		if best < 0 || bytes[k] > bytes[best] {
			best = k
		}
	}
	if best < 0 {
		return "", grammar.Size{}
	}
	return names[best], grammar.KnownSize(bytes[best])
}

// EachChunk calls add with the executable and the bytes of each in-use
// chunk of an allocator dump in text whose annotation names it: the one
// reading of a chunk line, for one record and for a whole failure.
func EachChunk(text string, add func(program string, bytes int64)) {
	grammar.EachAnchor(text, annotationAnchor, func(i int) {
		size, ok := chunkSize(text[max(0, i-DetailSpan):i])
		rest := text[i+len(annotationAnchor) : min(len(text), i+len(annotationAnchor)+DetailSpan)]
		if end := strings.IndexAny(rest, ",;} \r\n"); ok && end > 0 {
			add(rest[:end], size)
		}
	})
}

// chunkSize reads "InUse at <hex> of size <n> tag <tag>" ending before.
func chunkSize(before string) (int64, bool) {
	// The last "InUse at" before the annotation, found forwards: Index
	// scans a line many times faster than LastIndex.
	i := strings.Index(before, "InUse at ")
	if i < 0 {
		return 0, false
	}
	for j := strings.Index(before[i+1:], "InUse at "); j >= 0; j = strings.Index(before[i+1:], "InUse at ") {
		i += 1 + j
	}
	_, after, ok := strings.Cut(before[i:], " of size ")
	if !ok {
		return 0, false
	}
	digits, rest := logtext.LeadingDigits(after)
	if digits == "" || !strings.HasPrefix(rest, " tag ") || strings.Contains(rest, "InUse at ") {
		return 0, false
	}
	n, ok := grammar.ParseSize(digits)
	return n, ok && n <= 1<<62
}
