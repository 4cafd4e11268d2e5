// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// ActionOfRow is the kind of the step row gives for c: its own, else the
// one its actionOf reads (a family's lead or note, a step whose fix depends
// on the figures).
func ActionOfRow(row *AdviceRow, c AdviceCase) string {
	if row.ActionOf != nil {
		return row.ActionOf(c)
	}
	return row.Action
}

// leadAction and noteAction are the kinds of a family's lead step and note.
func leadAction(c AdviceCase) string { return c.Traits.LeadAction }
func noteAction(c AdviceCase) string { return c.Traits.NoteAction }

// adviseWithAction is remediate and the kind of the first step: that of the
// row that gave it, or of the family's own advice.
func adviseWithAction(r *grammar.Report, flat string, traits grammar.AdviceTraits) ([]string, string) {
	c := AdviceCase{R: r, Flat: flat, Traits: traits}
	if traits.Own != nil {
		if traits.OwnAction == nil { // every family sets it (TestEveryAdviceHasAnAction)
			return traits.Own(r), grammar.ActionInvestigate
		}
		return traits.Own(r), traits.OwnAction(r)
	}
	var first *AdviceRow
	steps := AdviseSeen(c, func(_ string, row *AdviceRow, given []string) {
		if first == nil && len(given) > 0 {
			first = row
		}
	})
	if first == nil {
		return steps, grammar.ActionInvestigate
	}
	return steps, ActionOfRow(first, c)
}

// GenericAction is the kind of a last-resort finding's first step: its
// first row ("what failed") always holds.
func GenericAction(*grammar.Report) string { return GenericAdviceTable[0].Action }
