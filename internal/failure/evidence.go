// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package failure

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// MaxHolders bounds the executables tallied for one failure.
const MaxHolders = 16

// evidence is what a failure keeps of what its records stated around its
// statements: a fixed amount, however many records it reads.
type evidence struct {
	limit, inUse, largestFree, poolSize, free oom.Size
	holders                                   [MaxHolders]Holder
	nHolders                                  int
	site                                      oom.Site
}

// The anchors of the evidence, looked for before anything is parsed.
const (
	statsAnchor   = "Stats:"
	summaryAnchor = "Allocator memory summary:"
	frameAnchor   = `File "`
)

// read takes what text states: the allocator's Stats and summary, the
// executables its dump names for in-use chunks, and the innermost frame of
// the user's own code in a traceback.
func (e *evidence) read(text string) {
	if i := strings.Index(text, statsAnchor); i >= 0 {
		e.readStats(text[i+len(statsAnchor):])
	}
	if i := strings.Index(text, summaryAnchor); i >= 0 {
		e.readSummary(text[i+len(summaryAnchor):])
	}
	oom.EachChunk(text, e.addHolder)
	if strings.Contains(text, frameAnchor) {
		if s, ok := UserFrame(text); ok {
			// Copies: the caller's text may be a buffer it reuses.
			e.site = oom.Site{File: strings.Clone(s.File), Line: s.Line, Function: strings.Clone(s.Function)}
		}
	}
}

// readStats reads the BFC allocator's "Stats:" block, one "Key: value" a
// line ("Limit:  59.38GiB", or exact bytes in TensorFlow's older builds).
func (e *evidence) readStats(s string) {
	for line := range strings.Lines(s) {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		var into *oom.Size
		switch key {
		case "Limit":
			into = &e.limit
		case "InUse":
			into = &e.inUse
		case "LargestFreeBlock":
			into = &e.largestFree
		default:
			continue
		}
		if size := oom.ParseSize(strings.TrimSpace(value)); size.Known {
			*into = size
		}
	}
}

// readSummary reads the 2026 "Allocator memory summary: rounded request R,
// total free in pool F, largest free chunk usable by lower end L,
// unallocated bytes U, pool size P, pool limit M".
func (e *evidence) readSummary(s string) {
	s, _, _ = strings.Cut(s, "\n")
	for field := range strings.SplitSeq(s, ",") {
		field = strings.TrimSpace(field)
		sp := strings.LastIndexByte(field, ' ')
		if sp < 0 {
			continue
		}
		name, size := field[:sp], oom.ParseSize(field[sp+1:])
		if !size.Known {
			continue
		}
		switch {
		case name == "total free in pool":
			e.free = size
		case strings.HasPrefix(name, "largest free chunk usable by"):
			e.largestFree = size
		case name == "pool size":
			e.poolSize = size
		case name == "pool limit":
			e.limit = size
		}
	}
}

// addHolder tallies one in-use chunk of program (oom.EachChunk).
func (e *evidence) addHolder(name string, size int64) {
	for i := range e.nHolders {
		if h := &e.holders[i]; h.Program == name {
			h.Bytes = min(h.Bytes+size, 1<<62)
			h.Chunks++
			return
		}
	}
	if e.nHolders < MaxHolders {
		e.holders[e.nHolders] = Holder{Program: strings.Clone(name), Bytes: size, Chunks: 1}
		e.nHolders++
	}
}

// apply completes r with the evidence: sizes r does not state, the largest
// holder and the site.
func (e *evidence) apply(r *oom.Report) {
	fill(&r.PoolLimit, e.limit)
	fill(&r.InUse, e.inUse)
	fill(&r.LargestFree, e.largestFree)
	fill(&r.PoolSize, e.poolSize)
	fill(&r.Free, e.free)
	if r.Cause == "" {
		r.Cause = oom.PoolCause(r.Requested, e.free, e.largestFree)
	}
	if hs := e.sortedHolders(); len(hs) > 0 && (r.MemoryHolder == "" || hs[0].Bytes >= r.MemoryHolderSize.Bytes) {
		r.MemoryHolder, r.MemoryHolderSize = hs[0].Program, oom.KnownSize(hs[0].Bytes)
	}
	if e.site.File != "" {
		r.Site = e.site
	}
}

// sortedHolders are the holders, most bytes first (the first tallied on a tie).
func (e *evidence) sortedHolders() []Holder {
	hs := append([]Holder(nil), e.holders[:e.nHolders]...)
	for i := 1; i < len(hs); i++ {
		for j := i; j > 0 && hs[j].Bytes > hs[j-1].Bytes; j-- {
			hs[j], hs[j-1] = hs[j-1], hs[j]
		}
	}
	return hs
}

func fill(dst *oom.Size, src oom.Size) {
	if !dst.Known && src.Known {
		*dst = src
	}
}
