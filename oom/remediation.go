// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"
	"strings"
)

// The advice of a report is read off tables of rows (condition → step),
// tried in order: every row whose condition holds adds its step. Which
// table applies is itself a table (codeAdvice), first match wins. The
// wording is ours; the facts (flags, APIs) come from the OpenXLA error
// pages E0100, E0101, E1000, E1001, E3000, the OOM debugging guide and
// JAX's GPU memory allocation notes.

// adviceCase is what a row reads: the report, its flattened text and the
// traits of the family that matched it.
type adviceCase struct {
	r      *Report
	flat   string
	traits adviceTraits
}

// adviceRow is one step of advice and the condition that calls for it.
type adviceRow struct {
	name string                  // short, unique within its table
	when func(c adviceCase) bool // whether the step applies
	say  func(c adviceCase) string
	// sayEach, used instead of say, appends one step per item (e.g. one
	// per padded allocation) to a.
	sayEach func(c adviceCase, a advice) advice
	// action is the kind of the step (actions.go); actionOf, when set,
	// reads it instead (a family's lead or note).
	action   string
	actionOf func(c adviceCase) string
}

// adviceTable is rows in the order they are tried and their steps given.
type adviceTable []adviceRow

// adviceSeen, when not nil, is told each row that gave steps (for tests).
type adviceSeen func(table string, row *adviceRow, steps []string)

// walk returns the steps of every row of t whose condition holds.
func (t adviceTable) walk(name string, c adviceCase, seen adviceSeen) advice {
	var a advice
	for i := range t {
		row := &t[i]
		if !row.when(c) {
			continue
		}
		n := len(a)
		if row.sayEach != nil {
			a = row.sayEach(c, a)
		} else {
			a = append(a, row.say(c))
		}
		if seen != nil {
			seen(name, row, a[n:])
		}
	}
	return a
}

// codeAdvice picks the table for a report: the first row whose condition
// holds. The last row takes every other code (E0007 and the rest).
var codeAdvice = []struct {
	name  string
	when  func(c adviceCase) bool
	table adviceTable
}{
	{"E1000 program does not fit", hasCode(codeHbm), compileHbmAdvice},
	{"E0100 runtime buffer", hasCode(codeBuffer), runtimeBufferAdvice},
	{"E0101 program load", hasCode(codeProgram), programLoadAdvice},
	{"E1001 scoped VMEM", hasCode(codeVmem), scopedVmemAdvice},
	{"E3000 SparseCore", hasCode(codeSparseCore), sparseCoreAdvice},
	{"host RAM", hostRAM, hostRAMAdvice},
	{"pinned host memory", isHostSpace, pinnedHostAdvice},
	{"device memory", always, deviceAdvice},
}

// adviseSeen returns the ordered steps for c.r (the ones its own numbers
// call for first, the general ones after), telling seen which rows gave
// steps; adviseWithAction (actions.go) calls it.
func adviseSeen(c adviceCase, seen adviceSeen) []string {
	if c.traits.own != nil {
		return c.traits.own(c.r)
	}
	var a advice
	for _, t := range codeAdvice {
		if t.when(c) {
			a = t.table.walk(t.name, c, seen)
			break
		}
	}
	if !hasBreakdownFigures(&c.r.Breakdown) {
		return a
	}
	// The breakdown's numbers come right after the headline's own.
	b := breakdownAdvice.walk("breakdown", c, seen)
	if len(b) == 0 {
		return a
	}
	out := make(advice, 0, len(a)+len(b))
	out = append(out, a[:min(1, len(a))]...)
	out = append(out, b...)
	return append(out, a[min(1, len(a)):]...)
}

// hasBreakdownFigures reports whether a breakdown was read at all.
func hasBreakdownFigures(b *Breakdown) bool {
	return len(b.Allocations) > 0 || b.Total.Known || b.AvailableAfter.Known
}

// Conditions shared by several tables.

func always(adviceCase) bool { return true }

func hasCode(code string) func(c adviceCase) bool {
	return func(c adviceCase) bool { return c.r.Code == code }
}

func fragmented(c adviceCase) bool { return c.r.Cause == CauseFragmentation }
func exhausted(c adviceCase) bool  { return c.r.Cause == CauseExhaustion }

// causeNotKnown: neither fragmentation nor exhaustion was read.
func causeNotKnown(c adviceCase) bool { return !fragmented(c) && !exhausted(c) }

// sayConst is a step that reads nothing from the report.
func sayConst(s string) func(adviceCase) string { return func(adviceCase) string { return s } }

// flatHas holds when the record's text contains s.
func flatHas(s string) func(c adviceCase) bool {
	return func(c adviceCase) bool { return strings.Contains(c.flat, s) }
}

func isHostSpace(c adviceCase) bool { return c.r.MemorySpace == "host" }

// familyLead is the matching family's first step, ahead of the code's own
// advice ("" for none).
func familyLead(c adviceCase) string {
	if c.traits.lead == nil {
		return ""
	}
	return c.traits.lead(c.r)
}

// leadRow and noteRow place the matching family's lead step and note.
var (
	leadRow = adviceRow{name: "family's lead step",
		when: func(c adviceCase) bool { return familyLead(c) != "" },
		say:  familyLead, actionOf: leadAction}
	noteRow = adviceRow{name: "family's note",
		when: func(c adviceCase) bool { return c.traits.note != "" },
		say:  func(c adviceCase) string { return c.traits.note }, actionOf: noteAction}
)

type advice []string

func (a *advice) add(parts ...string) { *a = append(*a, strings.Join(parts, "")) }

// humanSize formats a size for advice text ("1.50GiB").
func humanSize(s Size) string { return HumanBytes(s.Bytes) }

// ratio returns need/have, or 0 when either is unknown or have is not positive.
func ratio(need, have Size) float64 {
	if !need.Known || !have.Known || have.Bytes <= 0 {
		return 0
	}
	return float64(need.Bytes) / float64(have.Bytes)
}

func fmtRatio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) + "×" }

// freeNote is "; only X is free" when the free memory is known.
func freeNote(r *Report) string {
	if !r.Free.Known {
		return ""
	}
	return "; only " + humanSize(r.Free) + " is free"
}
