// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strconv"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// BreakdownAdvice is what a memory breakdown's numbers call for, right after the code's first step.
var BreakdownAdvice = AdviceTable{
	{Name: "culprit", Action: grammar.ActionShrinkFootprint, When: func(c AdviceCase) bool { return c.R.Breakdown.Culprit() >= 0 }, Say: func(c AdviceCase) string {
		b := &c.R.Breakdown
		e := &b.Allocations[b.Culprit()]
		s := "The largest allocation naming an operator is " + sizeAndShape(e) + ", made by " + shortOp(e.OpName)
		if src := e.Source(); src != "" {
			s += " at " + src
		}
		return s + ": shrink, shard (sharding constraints) or rematerialize this value first."
	}},
	{Name: "largest input", Action: grammar.ActionShard, When: func(c AdviceCase) bool { return c.R.Breakdown.LargestInput() >= 0 }, Say: func(c AdviceCase) string {
		b := &c.R.Breakdown
		in := &b.Allocations[b.LargestInput()]
		return "The largest program input in the list takes " + sizeAndShape(in) + ": shard or shrink that argument, or donate it if it is not needed after the call."
	}},
	{Name: "padded allocations", Action: grammar.ActionShrinkFootprint, When: func(c AdviceCase) bool { _, n := paddedAllocations(c); return n > 0 }, SayEach: func(c AdviceCase, a grammar.Advice) grammar.Advice {
		padded, n := paddedAllocations(c)
		for _, e := range padded[:n] {
			a = append(a, paddingStep(e))
		}
		return a
	}},
	{Name: "padding share of temporaries", Action: grammar.ActionShrinkFootprint, When: func(c AdviceCase) bool {
		b := &c.R.Breakdown
		return b.Padding.Known && b.Temp.Known && b.Temp.Bytes > 0 && b.Padding.Bytes*4 > b.Temp.Bytes
	}, Say: func(c AdviceCase) string {
		b := &c.R.Breakdown
		return grammar.HumanBytes(b.Padding.Bytes) + " of the " + grammar.HumanSize(b.Temp) + " of HLO temporaries is tile padding: aligning array dimensions to the TPU tile saves more than any flag."
	}},
	{Name: "arguments not donated", Action: grammar.ActionReleaseBuffers, When: func(c AdviceCase) bool {
		b := &c.R.Breakdown
		return b.Output.Known && b.OutputShared.Known && b.OutputShared.Bytes == 0 && b.Arguments.Known &&
			b.Arguments.Bytes >= 1<<30 && (!b.Total.Known || b.Arguments.Bytes*10 >= b.Total.Bytes)
	}, Say: func(c AdviceCase) string {
		b := &c.R.Breakdown
		return "The arguments take " + grammar.HumanSize(b.Arguments) + " and the output (" + grammar.HumanSize(b.Output) +
			") shares none of it. " + knobDonate + ": the arguments the step replaces above all."
	}},
	{Name: "short after the request", Action: grammar.ActionReleaseBuffers, When: func(c AdviceCase) bool {
		return c.R.Breakdown.AvailableAfter.Known && c.R.Breakdown.AvailableAfter.Bytes < 0
	}, Say: func(c AdviceCase) string {
		b := &c.R.Breakdown
		s := "After the request the device would be short by " + grammar.HumanBytes(-b.AvailableAfter.Bytes)
		if b.Allocated.Known {
			s += ", with " + grammar.HumanSize(b.Allocated) + " already allocated by data buffers"
		}
		if b.Program.Known {
			s += " and the program needing " + grammar.HumanSize(b.Program)
		}
		return s + ": this is exhaustion, not fragmentation; free or shard data buffers before the program loads."
	}},
	{Name: "fragmentation waste", Action: grammar.ActionChangeAllocator, When: func(c AdviceCase) bool { return fragmentationPct(c) >= 10 }, Say: func(c AdviceCase) string {
		return "The buffer assignment wastes " + grammar.HumanSize(c.R.Breakdown.Fragmentation) + " (" + strconv.FormatFloat(fragmentationPct(c), 'f', 1, 64) +
			"%) to fragmentation: a different allocator (" + knobAsyncAllocator + ") or fewer live buffers of mixed sizes may recover it."
	}},
}

const maxPaddingSteps = 3

// paddedAllocations are the first allocations padded to more than 1.5× their data, in an array: no allocation.
func paddedAllocations(c AdviceCase) (padded [maxPaddingSteps]*grammar.Allocation, n int) {
	for i := range c.R.Breakdown.Allocations {
		if e := &c.R.Breakdown.Allocations[i]; e.Expansion > 1.5 && n < maxPaddingSteps {
			padded[n] = e
			n++
		}
	}
	return padded, n
}

func paddingStep(e *grammar.Allocation) string {
	s := "Padding: an allocation holds " + grammar.HumanSize(e.Size)
	if e.OpName != "" {
		s = "Padding: " + shortOp(e.OpName) + " holds " + grammar.HumanSize(e.Size)
	}
	if e.Unpadded.Known {
		s += " for " + grammar.HumanSize(e.Unpadded) + " of data"
	}
	s += " (" + strconv.FormatFloat(e.Expansion, 'f', 1, 64) + "× expansion)."
	if hint := AlignmentHint(e.Shape); hint != "" {
		return s + " " + hint
	}
	return s + " TPU arrays are tiled (8,128) on their two minor-most dimensions: make those multiples of 8 and 128, or reorder dimensions so a large one is minor-most."
}

// fragmentationPct is the buffer assignment's share lost to fragmentation, in percent (0 when not known).
func fragmentationPct(c AdviceCase) float64 {
	b := &c.R.Breakdown
	if c.R.Phase != grammar.PhaseRuntime || !b.Fragmentation.Known || !b.Total.Known || b.Total.Bytes <= 0 {
		return 0
	}
	return float64(b.Fragmentation.Bytes) / float64(b.Total.Bytes) * 100
}

// shortOp quotes an operator name cut to 160 bytes.
func shortOp(op string) string { return "`" + logtext.Shorten(op, 160) + "`" }

// sizeAndShape is an allocation's size, then its shape in parentheses when printed.
func sizeAndShape(a *grammar.Allocation) string {
	if a.Shape == "" {
		return grammar.HumanSize(a.Size)
	}
	return grammar.HumanSize(a.Size) + " (" + a.Shape + ")"
}
