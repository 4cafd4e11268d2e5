// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"
	"strings"
)

// Memory breakdowns printed after an OOM headline, read from the flattened
// text (headers stripped from every line, whitespace folded), so a plain, a
// per-line prefixed (vLLM/Ray process tags, glog/XRT headers) and a breakdown
// flattened onto one line read the same way:
//
//   - TPU compile time (docs/message-formats.md, "Breakdowns"): "Total hbm usage >= X: reserved R
//     program P arguments A", "Output size O; shares S with arguments.",
//     "Program hbm requirement P: global G scoped S HLO temp T (…%
//     utilization: Unpadded (U) Padded (D), …% fragmentation (F))",
//     "Largest program allocations in hbm:" then numbered entries.
//   - GPU BufferAssignment dump (docs/message-formats.md): "BufferAssignment stats:" and
//     "Peak buffers: Buffer N: Size: …".
//   - XRT program load (docs/message-formats.md): "HBM capacity C: Top-of-Memory
//     reserved: … Currently allocated: … Program requirement: … Available
//     after request: …", exact "( 554,696,704 bytes)" figures preferred.
//
// The work is linear: every search runs forward over the text once per key,
// and at most MaxAllocations entries are read.

// MaxAllocations bounds the breakdown entries read from one record.
const MaxAllocations = 100

// Allocation is one entry of "Largest program allocations in hbm" (TPU) or
// "Peak buffers" (GPU).
type Allocation struct {
	Size       Size
	OpType     string // op_type="…", when printed
	OpName     string // op_name="…", escapes decoded
	SourceFile string
	SourceLine int64  // 0 when not printed
	Shape      string // "Shape:" or GPU "Entry Parameter Subshape:"
	Unpadded   Size
	Padding    Size    // "Extra memory due to padding: X"
	Expansion  float64 // "(N.Nx expansion)"; 0 when not printed
	Label      string  // "XLA label:" (bounded, may end in "...")
	Type       string  // "Allocation type:", e.g. "HLO temp"; "entry parameter" for a GPU entry parameter
}

// IsInput reports whether the allocation holds an input of the program (an
// entry parameter or argument), which is not a line of code to fix: its type
// says so, or its operator is a jax.export/torchax input path such as
// params_and_buffers['model.layers.1.mlp.w13_weight'] with no source line.
func (a *Allocation) IsInput() bool {
	t := strings.ToLower(a.Type)
	if strings.Contains(t, "parameter") || strings.Contains(t, "argument") {
		return true
	}
	if a.SourceFile == "" {
		for _, p := range inputPaths {
			if strings.HasPrefix(a.OpName, p) {
				return true
			}
		}
	}
	return false
}

var inputPaths = [...]string{"params_and_buffers[", "params[", "args[", "kwargs["}

// Source returns "file:line" (or the file alone), or "".
func (a *Allocation) Source() string {
	if a.SourceFile == "" {
		return ""
	}
	if a.SourceLine > 0 {
		return a.SourceFile + ":" + strconv.FormatInt(a.SourceLine, 10)
	}
	return a.SourceFile
}

// Breakdown holds the totals of a memory breakdown. Sizes are unknown when
// not printed (or printed as "unknown size").
type Breakdown struct {
	Total             Size // "Total hbm usage >= X", GPU "total allocation"
	Reserved          Size // "reserved X" of the total, XRT "Top-of-Memory reserved"
	Program           Size // "program X", "Program hbm requirement X", XRT "Program requirement"
	Arguments         Size // "arguments X", GPU "parameter allocation"
	Output            Size // "Output size X", GPU "maybe_live_out allocation"
	OutputShared      Size // "shares X with arguments"
	Temp              Size // "HLO temp X", GPU "preallocated temp allocation"
	TempFragmentation Size // HLO temp "…% fragmentation (X)", GPU "preallocated temp fragmentation"
	Fragmentation     Size // GPU "total fragmentation"
	Padding           Size // HLO temp Padded − Unpadded
	Allocated         Size // XRT "Currently allocated"
	AvailableAfter    Size // XRT "Available after request" (negative when short)

	Allocations []Allocation // in printed order
}

// Culprit returns the index of the largest allocation that names an operator
// and is not a program input, or -1.
func (b *Breakdown) Culprit() int {
	best := -1
	for i := range b.Allocations {
		a := &b.Allocations[i]
		if a.OpName == "" || a.IsInput() || !a.Size.Known {
			continue
		}
		if best < 0 || a.Size.Bytes > b.Allocations[best].Size.Bytes {
			best = i
		}
	}
	return best
}

// LargestInput returns the index of the largest program-input allocation, or -1.
func (b *Breakdown) LargestInput() int {
	best := -1
	for i := range b.Allocations {
		a := &b.Allocations[i]
		if !a.IsInput() || !a.Size.Known {
			continue
		}
		if best < 0 || a.Size.Bytes > b.Allocations[best].Size.Bytes {
			best = i
		}
	}
	return best
}

// breakdownAnchors are the phrases that start a breakdown; without one of
// them no breakdown work is done.
var breakdownAnchors = [...]string{
	"Total hbm usage >= ", "Program hbm requirement ", "Largest program allocations in ",
	"BufferAssignment stats:", "Peak buffers:", "Top-of-Memory reserved:",
}

func hasBreakdown(flat string) bool {
	for _, a := range breakdownAnchors {
		if strings.Contains(flat, a) {
			return true
		}
	}
	return false
}

// How far each part of a breakdown is read, in bytes of flattened text. Each
// part is a few labelled sizes, far shorter than its window; the windows
// bound the work on a record that repeats a heading.
const (
	totalsSpan      = 200  // "Total hbm usage >= X:" and its reserved, program and arguments
	programSpan     = 400  // "Program hbm requirement X:" up to its HLO temp line
	tempDetailSpan  = 200  // the HLO temp line's "(N% utilization, N% fragmentation (X))"
	bufferStatsSpan = 600  // GPU "BufferAssignment stats:" up to "Peak buffers:"
	topOfMemorySpan = 400  // XRT's "Top-of-Memory reserved:" figures
	maxEntrySpan    = 4096 // one allocation entry spans well under 4 KiB; the last one stops there
)

// readBreakdown fills b from the flattened record text.
func readBreakdown(b *Breakdown, flat string, maxEntries int) {
	if i := strings.Index(flat, "Total hbm usage >= "); i >= 0 {
		s := flat[i+len("Total hbm usage >= "):]
		tok, rest := nextToken(s)
		b.Total = parseSizeToken(strings.TrimSuffix(tok, ":"))
		sec := section(rest, totalsSpan, "Output size", "Program hbm requirement", "Largest program")
		b.Program = valueAfter(sec, "program ")
		b.Arguments = valueAfter(sec, "arguments ")
		b.Reserved = valueAfter(sec, "reserved ")
	}
	if i := strings.Index(flat, "Output size "); i >= 0 {
		s := flat[i+len("Output size "):]
		tok, rest := nextToken(s)
		if tok != "unknown." {
			b.Output = parseSizeToken(strings.TrimSuffix(tok, ";"))
			if r, ok := strings.CutPrefix(rest, "shares "); ok {
				t, _ := nextToken(r)
				b.OutputShared = parseSizeToken(t)
			}
		}
	}
	if i := strings.Index(flat, "Program hbm requirement "); i >= 0 {
		s := flat[i+len("Program hbm requirement "):]
		tok, rest := nextToken(s)
		if !b.Program.Known {
			b.Program = parseSizeToken(strings.TrimSuffix(tok, ":"))
		}
		sec := section(rest, programSpan, "Largest program", "Output size", "Total hbm usage")
		if j := strings.Index(sec, "HLO temp "); j >= 0 {
			t := sec[j+len("HLO temp "):]
			tok, detail := nextToken(t)
			b.Temp = parseSizeToken(tok)
			if strings.HasPrefix(detail, "(") {
				detail = detail[:min(len(detail), tempDetailSpan)]
				unp := parenAfter(detail, "Unpadded (")
				pad := parenAfter(detail, "Padded (")
				if unp.Known && pad.Known && pad.Bytes >= unp.Bytes {
					b.Padding = KnownSize(pad.Bytes - unp.Bytes)
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
	if maxEntries <= 0 {
		return
	}
	if i := strings.Index(flat, "Largest program allocations in "); i >= 0 {
		readEntries(b, flat[i:], maxEntries)
	} else if i := strings.Index(flat, "Peak buffers:"); i >= 0 {
		readEntries(b, flat[i:], maxEntries)
	}
}

func orSize(have, v Size) Size {
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

// valueAfter reads the size token following key in sec ("unknown size" and
// unreadable tokens give an unknown Size). key must start a word.
func valueAfter(sec, key string) Size {
	for from := 0; from < len(sec); {
		i := strings.Index(sec[from:], key)
		if i < 0 {
			return Size{}
		}
		i += from
		if i == 0 || sec[i-1] == ' ' || sec[i-1] == ':' {
			tok, _ := nextToken(sec[i+len(key):])
			return parseSizeToken(strings.TrimRight(tok, ":;,"))
		}
		from = i + len(key)
	}
	return Size{}
}

// exactAfter reads "key 529.00M ( 554,696,704 bytes)", preferring the exact figure.
func exactAfter(sec, key string) Size {
	i := strings.Index(sec, key)
	if i < 0 {
		return Size{}
	}
	tok, rest := nextToken(sec[i+len(key):])
	if r, ok := strings.CutPrefix(strings.TrimLeft(rest, " "), "("); ok {
		if ex, tail := nextToken(r); strings.HasPrefix(tail, "bytes)") {
			if s := parseSizeToken(ex); s.Known {
				return s
			}
		}
	}
	return parseSizeToken(tok)
}

// parenAfter reads the size in "key X)".
func parenAfter(s, key string) Size {
	i := strings.Index(s, key)
	if i < 0 {
		return Size{}
	}
	t := s[i+len(key):]
	if j := strings.IndexByte(t, ')'); j >= 0 && j <= 24 {
		return parseSizeToken(t[:j])
	}
	return Size{}
}

// entryFields are the labels of a breakdown entry, in any order.
var entryFields = [...]string{
	"Operator: ", "Shape: ", "Unpadded size: ", "Extra memory due to padding: ",
	"XLA label: ", "XLA Label: ", "Allocation type: ", "Entry Parameter Subshape: ", "==========",
}

const maxLabelLen = 256

// readEntries reads the numbered entries of s (which starts at the list's
// heading): each begins at "N. Size: " (TPU) or "Buffer N: Size: " (GPU).
func readEntries(b *Breakdown, s string, maxEntries int) {
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
	b.Allocations = make([]Allocation, 0, n)
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
	b := strings.TrimSuffix(before, " ")
	if len(b) == len(before) {
		return false
	}
	var sep byte
	if n := len(b); n > 0 && (b[n-1] == '.' || b[n-1] == ':') {
		sep = b[n-1]
		b = b[:n-1]
	} else {
		return false
	}
	k := len(b)
	for k > 0 && b[k-1] >= '0' && b[k-1] <= '9' {
		k--
	}
	if k == len(b) {
		return false
	}
	if sep == '.' {
		return k == 0 || b[k-1] == ' ' || b[k-1] == ':'
	}
	return strings.HasSuffix(b[:k], "Buffer ")
}

// readEntry reads one entry; seg starts at its size.
func readEntry(seg string) Allocation {
	var a Allocation
	tok, _ := nextToken(seg)
	a.Size = parseSizeToken(tok)
	// the end of the entry: its "=====" rule, else the segment end
	if i := strings.Index(seg, "=========="); i >= 0 {
		seg = seg[:i]
	}
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
		a.Unpadded = parseSizeToken(t)
	}
	if v, ok := field("Extra memory due to padding: "); ok {
		t, rest := nextToken(v)
		a.Padding = parseSizeToken(t)
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

func bounded(s string) string { return boundedTo(s, maxLabelLen) }

// boundedTo cuts s to about n bytes, marking the cut with "...".
func boundedTo(s string, n int) string {
	if len(s) > n {
		s = s[:n]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 { // do not cut a UTF-8 sequence
			s = s[:len(s)-1]
		}
		if len(s) > 0 && s[len(s)-1] >= 0xC0 {
			s = s[:len(s)-1]
		}
		s += "..."
	}
	return s
}

// readOperator reads `[op_type="…"] op_name="…" [source_file="…" source_line=N]`.
func readOperator(a *Allocation, s string) {
	a.OpType = quotedValue(s, `op_type="`)
	a.OpName = boundedTo(quotedValue(s, `op_name="`), 2*maxLabelLen)
	a.SourceFile = bounded(quotedValue(s, `source_file="`))
	if i := strings.Index(s, "source_line="); i >= 0 {
		d, _ := leadingDigits(s[i+len("source_line="):])
		if n, err := strconv.ParseInt(d, 10, 64); err == nil {
			a.SourceLine = n
		}
	}
}

// quotedValue returns the value of key"…" with backslash escapes decoded
// (\' \" \\ and \n), or "" when absent. An unterminated value (a
// truncated paste) is returned as far as it goes.
func quotedValue(s, key string) string {
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	v := s[i+len(key):]
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
