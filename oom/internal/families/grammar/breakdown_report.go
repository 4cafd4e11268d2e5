// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"slices"
	"strconv"
	"strings"
)

// MaxAllocations bounds the breakdown entries read from one record.
const MaxAllocations = 100

// Allocation is one entry of "Largest program allocations in hbm" (TPU) or "Peak buffers" (GPU).
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

// IsInput reports whether the allocation holds a program input, not a line of code to fix: its type says so,
// or its operator is a jax.export/torchax input path (params_and_buffers['…']) with no source line.
func (a *Allocation) IsInput() bool {
	t := strings.ToLower(a.Type)
	if strings.Contains(t, "parameter") || strings.Contains(t, "argument") {
		return true
	}
	return a.SourceFile == "" && slices.ContainsFunc(inputPaths[:], func(p string) bool { return strings.HasPrefix(a.OpName, p) })
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

// Breakdown holds the totals of a memory breakdown; sizes not printed (or "unknown size") are unknown.
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

// Culprit returns the index of the largest allocation that names an operator and is no input, or -1.
func (b *Breakdown) Culprit() int {
	return b.largest(func(a *Allocation) bool { return a.OpName != "" && !a.IsInput() })
}

// LargestInput returns the index of the largest program-input allocation, or -1.
func (b *Breakdown) LargestInput() int { return b.largest((*Allocation).IsInput) }

// largest returns the index of the first largest allocation of known size that keep accepts, or -1.
func (b *Breakdown) largest(keep func(*Allocation) bool) int {
	best := -1
	for i := range b.Allocations {
		a := &b.Allocations[i]
		if a.Size.Known && keep(a) && (best < 0 || a.Size.Bytes > b.Allocations[best].Size.Bytes) {
			best = i
		}
	}
	return best
}
