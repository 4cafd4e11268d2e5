// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// The advice of a report is read off tables of rows (condition → step),
// tried in order: every row whose condition holds adds its step. Which
// table applies is itself a table (codeAdvice), first match wins. The
// wording is ours; the facts (flags, APIs) come from the OpenXLA error
// pages E0100, E0101, E1000, E1001, E3000, the OOM debugging guide and
// JAX's GPU memory allocation notes.

// AdviceCase is what a row reads: the report, its flattened text and the
// traits of the family that matched it.
type AdviceCase struct {
	R      *grammar.Report
	Flat   string
	Traits grammar.AdviceTraits
}

// AdviceRow is one step of advice and the condition that calls for it.
type AdviceRow struct {
	Name string                  // short, unique within its table
	When func(c AdviceCase) bool // whether the step applies
	Say  func(c AdviceCase) string
	// sayEach, used instead of say, appends one step per item (e.g. one
	// per padded allocation) to a.
	SayEach func(c AdviceCase, a grammar.Advice) grammar.Advice
	// Action is the kind of the step (actions.go); actionOf, when set,
	// reads it instead (a family's lead or note).
	Action   string
	ActionOf func(c AdviceCase) string
}

// AdviceTable is rows in the order they are tried and their steps given.
type AdviceTable []AdviceRow

// adviceSeen, when not nil, is told each row that gave steps (for tests).
type adviceSeen func(table string, row *AdviceRow, steps []string)

// Walk returns the steps of every row of t whose condition holds.
func (t AdviceTable) Walk(name string, c AdviceCase, seen adviceSeen) grammar.Advice {
	var a grammar.Advice
	for i := range t {
		row := &t[i]
		if !row.When(c) {
			continue
		}
		n := len(a)
		if row.SayEach != nil {
			a = row.SayEach(c, a)
		} else {
			a = append(a, row.Say(c))
		}
		if seen != nil {
			seen(name, row, a[n:])
		}
	}
	return a
}

// CodeAdvice picks the table for a report: the first row whose condition
// holds. The last row takes every other code (E0007 and the rest).
var CodeAdvice = []struct {
	Name  string
	When  func(c AdviceCase) bool
	Table AdviceTable
}{
	{"E1000 program does not fit", hasCode(grammar.CodeHbm), compileHbmAdvice},
	{"E0100 runtime buffer", hasCode(grammar.CodeBuffer), runtimeBufferAdvice},
	{"E0101 program load", hasCode(grammar.CodeProgram), programLoadAdvice},
	{"E1001 scoped VMEM", hasCode(grammar.CodeVmem), scopedVmemAdvice},
	{"E3000 SparseCore", hasCode(grammar.CodeSparseCore), sparseCoreAdvice},
	{"host RAM", hostRAM, hostRAMAdvice},
	{"pinned host memory", isHostSpace, pinnedHostAdvice},
	{"device memory", always, deviceAdvice},
}

// AdviseSeen returns the ordered steps for c.r (the ones its own numbers
// call for first, the general ones after), telling seen which rows gave
// steps; adviseWithAction (actions.go) calls it.
func AdviseSeen(c AdviceCase, seen adviceSeen) []string {
	if c.Traits.Own != nil {
		return c.Traits.Own(c.R)
	}
	var a grammar.Advice
	for _, t := range CodeAdvice {
		if t.When(c) {
			a = t.Table.Walk(t.Name, c, seen)
			break
		}
	}
	if !hasBreakdownFigures(&c.R.Breakdown) {
		return a
	}
	// The breakdown's numbers come right after the headline's own.
	b := BreakdownAdvice.Walk("breakdown", c, seen)
	if len(b) == 0 {
		return a
	}
	out := make(grammar.Advice, 0, len(a)+len(b))
	out = append(out, a[:min(1, len(a))]...)
	out = append(out, b...)
	return append(out, a[min(1, len(a)):]...)
}

// hasBreakdownFigures reports whether a breakdown was read at all.
func hasBreakdownFigures(b *grammar.Breakdown) bool {
	return len(b.Allocations) > 0 || b.Total.Known || b.AvailableAfter.Known
}

// Conditions shared by several tables.

func always(AdviceCase) bool { return true }

func hasCode(code string) func(c AdviceCase) bool {
	return func(c AdviceCase) bool { return c.R.Code == code }
}

func fragmented(c AdviceCase) bool { return c.R.Cause == grammar.CauseFragmentation }
func exhausted(c AdviceCase) bool  { return c.R.Cause == grammar.CauseExhaustion }

// causeNotKnown: neither fragmentation nor exhaustion was read.
func causeNotKnown(c AdviceCase) bool { return !fragmented(c) && !exhausted(c) }

// sayConst is a step that reads nothing from the report.
func sayConst(s string) func(AdviceCase) string { return func(AdviceCase) string { return s } }

// flatHas holds when the record's text contains s.
func flatHas(s string) func(c AdviceCase) bool {
	return func(c AdviceCase) bool { return strings.Contains(c.Flat, s) }
}

func isHostSpace(c AdviceCase) bool { return c.R.MemorySpace == "host" }

// familyLead is the matching family's first step, ahead of the code's own
// advice ("" for none).
func familyLead(c AdviceCase) string {
	if c.Traits.Lead == nil {
		return ""
	}
	return c.Traits.Lead(c.R)
}

// leadRow and noteRow place the matching family's lead step and note.
var (
	LeadRow = AdviceRow{Name: "family's lead step",
		When: func(c AdviceCase) bool { return familyLead(c) != "" },
		Say:  familyLead, ActionOf: leadAction}
	NoteRow = AdviceRow{Name: "family's note",
		When: func(c AdviceCase) bool { return c.Traits.Note != "" },
		Say:  func(c AdviceCase) string { return c.Traits.Note }, ActionOf: noteAction}
)

// FmtRatio formats a ratio for advice text ("1.24×").
func FmtRatio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) + "×" }

// freeNote is "; only X is free" when the free memory is known.
func freeNote(r *grammar.Report) string {
	if !r.Free.Known {
		return ""
	}
	return "; only " + grammar.HumanSize(r.Free) + " is free"
}
