// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// A chunk's executable holds memory, it need not be the one that failed: it
// fills MemoryHolder, never Program.
const (
	summaryAnchor    = "Allocator memory summary: "
	statsAnchor      = "Stats:"
	annotationAnchor = " allocation_annotation xla.execute{executable="
	MaxHolders       = 16 // executables tallied for one record or failure
)

// AllocatorAnchors join the hard-wrap vocabulary, as the Details' anchors do.
var AllocatorAnchors = []string{summaryAnchor, statsAnchor + " Limit:", "InUse:"}

// Holder is an executable and the bytes its in-use chunks hold.
type Holder struct {
	Program string
	Bytes   int64
	Chunks  int
}

// Allocator is what an allocator printed about its pool, in one record or a
// whole failure's: a later figure replaces an earlier one.
type Allocator struct {
	Request     grammar.Size // the summary's rounded request
	PoolFree    grammar.Size // free in the pool the allocator has claimed
	Unallocated grammar.Size // the limit's bytes not yet claimed from the device
	LargestFree grammar.Size
	PoolSize    grammar.Size
	PoolLimit   grammar.Size
	InUse       grammar.Size
	holders     [MaxHolders]Holder
	nHolders    int
}

// Read takes the Stats, summaries and in-use chunks of text.
func (a *Allocator) Read(text string) {
	grammar.EachAnchor(text, statsAnchor, func(i int) { a.readStats(text[i+len(statsAnchor):]) })
	grammar.EachAnchor(text, summaryAnchor, func(i int) { a.readSummary(text[i+len(summaryAnchor):]) })
	EachChunk(text, a.addHolder)
}

// readStats reads "Limit: X InUse: Y ..." pairs, a line each or on one line
// (flattened, cudaMallocAsync), up to the first word that is no key.
func (a *Allocator) readStats(s string) {
	f := strings.Fields(s[:min(len(s), 4*DetailSpan)])
	if len(s) > 4*DetailSpan && len(f) > 0 {
		f = f[:len(f)-1] // it may be cut
	}
	for k := 0; k+1 < len(f) && strings.HasSuffix(f[k], ":"); k += 2 {
		var into *grammar.Size
		switch f[k] {
		case "Limit:":
			into = &a.PoolLimit
		case "InUse:":
			into = &a.InUse
		case "LargestFreeBlock:":
			into = &a.LargestFree
		default:
			continue
		}
		if size := grammar.ParseSizeToken(f[k+1]); size.Known {
			*into = size
		}
	}
}

// readSummary reads "rounded request R, total free in pool F, largest free
// chunk usable by <end> end L, unallocated bytes U, pool size P, pool limit M".
func (a *Allocator) readSummary(s string) {
	s, _, _ = strings.Cut(s, "\n")
	for field := range strings.SplitSeq(s, ",") {
		field = strings.TrimSpace(field)
		sp := strings.LastIndexByte(field, ' ')
		if sp < 0 || len(field)-sp > 25 {
			continue
		}
		var into *grammar.Size
		switch name := field[:sp]; {
		case name == "rounded request":
			into = &a.Request
		case name == "total free in pool":
			into = &a.PoolFree
		case name == "unallocated bytes":
			into = &a.Unallocated
		case strings.HasPrefix(name, "largest free chunk usable by"):
			into = &a.LargestFree
		case name == "pool size":
			into = &a.PoolSize
		case name == "pool limit":
			into = &a.PoolLimit
		default:
			continue
		}
		if size := grammar.ParseSizeToken(field[sp+1:]); size.Known {
			*into = size
		}
	}
}

// addHolder tallies one in-use chunk of program (EachChunk).
func (a *Allocator) addHolder(program string, bytes int64) {
	for i := range a.nHolders {
		if h := &a.holders[i]; h.Program == program {
			h.Bytes = min(h.Bytes+bytes, 1<<62)
			h.Chunks++
			return
		}
	}
	if a.nHolders < MaxHolders { // a copy: the caller may reuse its text
		a.holders[a.nHolders] = Holder{Program: strings.Clone(program), Bytes: bytes, Chunks: 1}
		a.nHolders++
	}
}

// Holders are the in-use chunks' executables, most bytes first, stable.
func (a *Allocator) Holders() []Holder {
	hs := append([]Holder(nil), a.holders[:a.nHolders]...)
	for i := 1; i < len(hs); i++ {
		for j := i; j > 0 && hs[j].Bytes > hs[j-1].Bytes; j-- {
			hs[j], hs[j-1] = hs[j-1], hs[j]
		}
	}
	return hs
}

// Free is what the allocator could still hand out, claimed or not.
func (a *Allocator) Free() grammar.Size { return grammar.AddSizes(a.PoolFree, a.Unallocated) }

// Apply completes r with the figures it does not state, the cause (the
// request against the claimed pool; unclaimed bytes do not count, claiming
// them failed too) and the largest holder.
func (a *Allocator) Apply(r *grammar.Report) {
	fill(&r.Free, a.Free())
	fill(&r.PoolLimit, a.PoolLimit)
	fill(&r.InUse, a.InUse)
	fill(&r.LargestFree, a.LargestFree)
	fill(&r.PoolSize, a.PoolSize)
	if r.Cause == "" {
		request := a.Request
		if !request.Known {
			request = r.Requested
		}
		r.Cause = grammar.PoolCause(request, a.PoolFree, a.LargestFree)
	}
	if a.nHolders > 0 {
		if top := a.Holders()[0]; r.MemoryHolder == "" || top.Bytes >= r.MemoryHolderSize.Bytes {
			r.MemoryHolder, r.MemoryHolderSize = top.Program, grammar.KnownSize(top.Bytes)
		}
	}
}

func fill(dst *grammar.Size, src grammar.Size) {
	if !dst.Known && src.Known {
		*dst = src
	}
}

// EachChunk calls add with each annotated in-use chunk's executable and bytes.
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
	// The last "InUse at", found forwards: Index is many times faster.
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
