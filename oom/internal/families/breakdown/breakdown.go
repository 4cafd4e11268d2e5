// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package breakdown reads the memory breakdowns printed with a failure: TPU totals and largest allocations,
// GPU BufferAssignment stats and peak buffers, XRT program-load figures.
package breakdown

import (
	"slices"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// breakdownAnchors are the phrases that start a breakdown.
var breakdownAnchors = []string{
	"Total hbm usage >= ", "Program hbm requirement ", "Largest program allocations in ",
	"BufferAssignment stats:", "Peak buffers:", "Top-of-Memory reserved:",
}

// HasBreakdown reports whether flat holds one of breakdownAnchors: without one, no breakdown work is done.
func HasBreakdown(flat string) bool {
	return slices.ContainsFunc(breakdownAnchors, func(a string) bool { return strings.Contains(flat, a) })
}

// How far each part of a breakdown is read: far more than its few sizes, bounding a record repeating a heading.
const (
	totalsSpan      = 200  // "Total hbm usage >= X:" and its reserved, program and arguments
	programSpan     = 400  // "Program hbm requirement X:" up to its HLO temp line
	tempDetailSpan  = 200  // the HLO temp line's "(N% utilization, N% fragmentation (X))"
	bufferStatsSpan = 600  // GPU "BufferAssignment stats:" up to "Peak buffers:"
	topOfMemorySpan = 400  // XRT's "Top-of-Memory reserved:" figures
	maxEntrySpan    = 4096 // one allocation entry spans well under 4 KiB; the last one stops there
)

// ReadBreakdown fills b from the flattened record, at most grammar.MaxAllocations entries.
func ReadBreakdown(b *grammar.Breakdown, flat string) {
	if _, s, ok := strings.Cut(flat, "Total hbm usage >= "); ok {
		tok, rest := nextToken(s)
		b.Total = grammar.ParseSizeToken(strings.TrimSuffix(tok, ":"))
		sec := section(rest, totalsSpan, "Output size", "Program hbm requirement", "Largest program")
		b.Program = valueAfter(sec, "program ")
		b.Arguments = valueAfter(sec, "arguments ")
		b.Reserved = valueAfter(sec, "reserved ")
	}
	if _, s, ok := strings.Cut(flat, "Output size "); ok {
		tok, rest := nextToken(s)
		if tok != "unknown." {
			b.Output = grammar.ParseSizeToken(strings.TrimSuffix(tok, ";"))
			if r, ok := strings.CutPrefix(rest, "shares "); ok {
				t, _ := nextToken(r)
				b.OutputShared = grammar.ParseSizeToken(t)
			}
		}
	}
	if _, s, ok := strings.Cut(flat, "Program hbm requirement "); ok {
		tok, rest := nextToken(s)
		b.Program = orSize(b.Program, grammar.ParseSizeToken(strings.TrimSuffix(tok, ":")))
		sec := section(rest, programSpan, "Largest program", "Output size", "Total hbm usage")
		if _, t, ok := strings.Cut(sec, "HLO temp "); ok {
			tok, detail := nextToken(t)
			b.Temp = grammar.ParseSizeToken(tok)
			if strings.HasPrefix(detail, "(") {
				detail = detail[:min(len(detail), tempDetailSpan)]
				unp := parenAfter(detail, "Unpadded (")
				pad := parenAfter(detail, "Padded (")
				if unp.Known && pad.Known && pad.Bytes >= unp.Bytes {
					b.Padding = grammar.KnownSize(pad.Bytes - unp.Bytes)
				}
				b.TempFragmentation = parenAfter(detail, "% fragmentation (")
			}
		}
	}
	if i := strings.Index(flat, "BufferAssignment stats:"); i >= 0 {
		sec := section(flat[i:], bufferStatsSpan, "Peak buffers:")
		b.Arguments = orSize(b.Arguments, valueAfter(sec, "parameter allocation: "))
		b.Output = orSize(b.Output, valueAfter(sec, "maybe_live_out allocation: "))
		b.Temp = orSize(b.Temp, valueAfter(sec, "preallocated temp allocation: "))
		b.TempFragmentation = orSize(b.TempFragmentation, valueAfter(sec, "preallocated temp fragmentation: "))
		b.Total = orSize(b.Total, valueAfter(sec, "total allocation: "))
		b.Fragmentation = orSize(b.Fragmentation, valueAfter(sec, "total fragmentation: "))
	}
	if i := strings.Index(flat, "Top-of-Memory reserved:"); i >= 0 {
		sec := section(flat[i:], topOfMemorySpan, "; attempting", "Traceback")
		b.Reserved = orSize(b.Reserved, exactAfter(sec, "Top-of-Memory reserved: "))
		b.Allocated = orSize(b.Allocated, exactAfter(sec, "Currently allocated: "))
		b.Program = orSize(b.Program, exactAfter(sec, "Program requirement: "))
		b.AvailableAfter = orSize(b.AvailableAfter, exactAfter(sec, "Available after request: "))
	}
	if i := strings.Index(flat, "Largest program allocations in "); i >= 0 {
		readEntries(b, flat[i:])
	} else if i := strings.Index(flat, "Peak buffers:"); i >= 0 {
		readEntries(b, flat[i:])
	}
}

func orSize(have, v grammar.Size) grammar.Size {
	if have.Known {
		return have
	}
	return v
}

// nextToken splits s at its first space.
func nextToken(s string) (tok, rest string) {
	s = strings.TrimLeft(s, " ")
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// section returns s up to the first of ends (or n bytes).
func section(s string, n int, ends ...string) string {
	s = s[:min(len(s), n)]
	for _, e := range ends {
		if i := strings.Index(s, e); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

// valueAfter reads the size token after key, which must start a word, in sec (unreadable: unknown).
func valueAfter(sec, key string) grammar.Size {
	for from := 0; from < len(sec); {
		i := strings.Index(sec[from:], key)
		if i < 0 {
			return grammar.Size{}
		}
		i += from
		if i == 0 || sec[i-1] == ' ' || sec[i-1] == ':' {
			tok, _ := nextToken(sec[i+len(key):])
			return grammar.ParseSizeToken(strings.TrimRight(tok, ":;,"))
		}
		from = i + len(key)
	}
	return grammar.Size{}
}

// exactAfter reads "key 529.00M ( 554,696,704 bytes)", preferring the exact figure.
func exactAfter(sec, key string) grammar.Size {
	_, v, ok := strings.Cut(sec, key)
	if !ok {
		return grammar.Size{}
	}
	tok, rest := nextToken(v)
	if r, ok := strings.CutPrefix(strings.TrimLeft(rest, " "), "("); ok {
		if ex, tail := nextToken(r); strings.HasPrefix(tail, "bytes)") {
			if s := grammar.ParseSizeToken(ex); s.Known {
				return s
			}
		}
	}
	return grammar.ParseSizeToken(tok)
}

// parenAfter reads the size in "key X)".
func parenAfter(s, key string) grammar.Size {
	_, t, ok := strings.Cut(s, key)
	if j := strings.IndexByte(t, ')'); ok && j >= 0 && j <= 24 {
		return grammar.ParseSizeToken(t[:j])
	}
	return grammar.Size{}
}

// entryFields are the labels of a breakdown entry, in any order.
var entryFields = [...]string{
	"Operator: ", "Shape: ", "Unpadded size: ", "Extra memory due to padding: ",
	"XLA label: ", "XLA Label: ", "Allocation type: ", "Entry Parameter Subshape: ", "==========",
}

const maxLabelLen = 256

// readEntries reads the numbered entries of s: "N. Size: " (TPU) or "Buffer N: Size: " (GPU).
func readEntries(b *grammar.Breakdown, s string) {
	const maxEntries = grammar.MaxAllocations
	starts := make([]int, 0, min(maxEntries, 16)+1)
	for from := 0; len(starts) <= maxEntries; {
		i := strings.Index(s[from:], "Size: ")
		if i < 0 {
			break
		}
		i += from
		from = i + len("Size: ")
		if entryStart(s[:i]) {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return
	}
	n := min(len(starts), maxEntries)
	b.Allocations = make([]grammar.Allocation, 0, n)
	for k := 0; k < n; k++ {
		end := len(s)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		seg := s[starts[k]+len("Size: ") : min(end, starts[k]+maxEntrySpan)]
		b.Allocations = append(b.Allocations, readEntry(seg))
	}
}

// entryStart reports whether before ends in "N. " or "Buffer N: ".
func entryStart(before string) bool {
	b, ok := strings.CutSuffix(before, " ")
	if !ok || b == "" || b[len(b)-1] != '.' && b[len(b)-1] != ':' {
		return false
	}
	sep, b := b[len(b)-1], b[:len(b)-1]
	rest := strings.TrimRight(b, "0123456789")
	if len(rest) == len(b) {
		return false
	}
	if sep == '.' {
		return rest == "" || rest[len(rest)-1] == ' ' || rest[len(rest)-1] == ':'
	}
	return strings.HasSuffix(rest, "Buffer ")
}

// readEntry reads one entry; seg starts at its size.
func readEntry(seg string) grammar.Allocation {
	var a grammar.Allocation
	tok, _ := nextToken(seg)
	a.Size = grammar.ParseSizeToken(tok)
	seg, _, _ = strings.Cut(seg, "==========") // the entry's rule, else the segment end
	field := func(label string) (string, bool) {
		i := strings.Index(seg, label)
		if i < 0 {
			return "", false
		}
		v := seg[i+len(label):]
		end := len(v)
		for _, f := range entryFields {
			if f == label {
				continue
			}
			if j := strings.Index(v[:end], f); j >= 0 {
				end = j
			}
		}
		return strings.TrimSpace(v[:end]), true
	}
	if v, ok := field("Operator: "); ok {
		readOperator(&a, v)
	}
	if v, ok := field("Shape: "); ok {
		a.Shape = bounded(v)
	}
	if v, ok := field("Entry Parameter Subshape: "); ok {
		a.Shape, a.Type = bounded(v), "entry parameter"
	}
	if v, ok := field("Unpadded size: "); ok {
		t, _ := nextToken(v)
		a.Unpadded = grammar.ParseSizeToken(t)
	}
	if v, ok := field("Extra memory due to padding: "); ok {
		t, rest := nextToken(v)
		a.Padding = grammar.ParseSizeToken(t)
		if r, ok := strings.CutPrefix(rest, "("); ok {
			if j := strings.Index(r, "x expansion"); j > 0 {
				if x, err := strconv.ParseFloat(r[:j], 64); err == nil {
					a.Expansion = x
				}
			}
		}
	}
	if v, ok := field("XLA label: "); ok {
		a.Label = bounded(v)
	} else if v, ok := field("XLA Label: "); ok {
		a.Label = bounded(v)
	}
	if v, ok := field("Allocation type: "); ok && a.Type == "" {
		a.Type = bounded(v)
	}
	if a.Expansion == 0 && a.Padding.Known && a.Unpadded.Known && a.Unpadded.Bytes > 0 && a.Size.Known {
		a.Expansion = float64(a.Size.Bytes) / float64(a.Unpadded.Bytes)
	}
	return a
}

func bounded(s string) string { return logtext.Shorten(s, maxLabelLen) }

// readOperator reads `[op_type="…"] op_name="…" [source_file="…" source_line=N]`.
func readOperator(a *grammar.Allocation, s string) {
	a.OpType = quotedValue(s, `op_type="`)
	a.OpName = logtext.Shorten(quotedValue(s, `op_name="`), 2*maxLabelLen)
	a.SourceFile = bounded(quotedValue(s, `source_file="`))
	if i := strings.Index(s, "source_line="); i >= 0 {
		d, _ := logtext.LeadingDigits(s[i+len("source_line="):])
		if n, err := strconv.ParseInt(d, 10, 64); err == nil {
			a.SourceLine = n
		}
	}
}

// quotedValue returns the value of key"…" with backslash escapes decoded, "" when absent; an unterminated
// value (a truncated paste) is returned as far as it goes.
func quotedValue(s, key string) string {
	_, v, ok := strings.Cut(s, key)
	if !ok {
		return ""
	}
	var sb strings.Builder
	for j := 0; j < len(v); j++ {
		c := v[j]
		switch {
		case c == '"':
			return sb.String()
		case c == '\\' && j+1 < len(v):
			j++
			switch v[j] {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			default:
				sb.WriteByte(v[j])
			}
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
