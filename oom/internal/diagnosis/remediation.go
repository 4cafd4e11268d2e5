// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"slices"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Advice is read off tables of rows: every row whose condition holds adds
// its step. The wording is ours; the facts (flags, APIs) come from the
// OpenXLA error pages E0100, E0101, E1000, E1001, E3000, the OOM debugging
// guide and JAX's GPU memory allocation notes.

// AdviceCase is what a row reads: the report, its flattened text and the
// traits of the family that matched it.
type AdviceCase struct {
	R      *grammar.Report
	Flat   string
	Traits grammar.AdviceTraits
}

// AdviceRow is one step of advice and the condition that calls for it.
type AdviceRow struct {
	Name string // short, unique within its table
	When func(c AdviceCase) bool
	Say  func(c AdviceCase) string
	// SayEach, used instead of Say, appends one step per item (e.g. per
	// padded allocation).
	SayEach func(c AdviceCase, a grammar.Advice) grammar.Advice
	// Action is the kind of the step; ActionOf, when set, reads it instead.
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

// AdviseSeen returns the tables' ordered steps for c.R, telling seen which
// rows gave steps. A family's own advice (Traits.Own) is not a table: the
// caller, adviseWithAction, gives it.
func AdviseSeen(c AdviceCase, seen adviceSeen) []string {
	var a grammar.Advice
	for _, t := range CodeAdvice {
		if t.When(c) {
			a = t.Table.Walk(t.Name, c, seen)
			break
		}
	}
	if b := &c.R.Breakdown; len(b.Allocations) == 0 && !b.Total.Known && !b.AvailableAfter.Known {
		return a // no breakdown was read
	}
	// The breakdown's numbers come right after the headline's own.
	return slices.Insert(a, min(1, len(a)), BreakdownAdvice.Walk("breakdown", c, seen)...)
}

func always(AdviceCase) bool { return true }

func hasCode(code string) func(c AdviceCase) bool {
	return func(c AdviceCase) bool { return c.R.Code == code }
}

func fragmented(c AdviceCase) bool { return c.R.Cause == grammar.CauseFragmentation }
func exhausted(c AdviceCase) bool  { return c.R.Cause == grammar.CauseExhaustion }

func causeNotKnown(c AdviceCase) bool { return !fragmented(c) && !exhausted(c) }

// larger reports whether both sizes are known and a is the larger.
func larger(a, b grammar.Size) bool { return a.Known && b.Known && a.Bytes > b.Bytes }

func sayConst(s string) func(AdviceCase) string { return func(AdviceCase) string { return s } }

func flatHas(s string) func(c AdviceCase) bool {
	return func(c AdviceCase) bool { return strings.Contains(c.Flat, s) }
}

func isHostSpace(c AdviceCase) bool { return c.R.MemorySpace == "host" }

// familyLead is the matching family's first step ("" for none).
func familyLead(c AdviceCase) string {
	if c.Traits.Lead == nil {
		return ""
	}
	return c.Traits.Lead(c.R)
}

// LeadRow and NoteRow place the matching family's lead step and note.
var (
	LeadRow = AdviceRow{Name: "family's lead step",
		When:     func(c AdviceCase) bool { return familyLead(c) != "" },
		Say:      familyLead,
		ActionOf: func(c AdviceCase) string { return c.Traits.LeadAction }}
	NoteRow = AdviceRow{Name: "family's note",
		When:     func(c AdviceCase) bool { return c.Traits.Note != "" },
		Say:      func(c AdviceCase) string { return c.Traits.Note },
		ActionOf: func(c AdviceCase) string { return c.Traits.NoteAction }}
)

// FmtRatio formats a ratio for advice ("1.24×").
func FmtRatio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) + "×" }

// freeNote is "; only X is free" when the free memory is known.
func freeNote(r *grammar.Report) string {
	if !r.Free.Known {
		return ""
	}
	return "; only " + grammar.HumanSize(r.Free) + " is free"
}
