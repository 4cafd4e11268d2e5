// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// ActionOfRow is the kind of the step row gives for c.
func ActionOfRow(row *AdviceRow, c AdviceCase) string {
	if row.ActionOf != nil {
		return row.ActionOf(c)
	}
	return row.Action
}

// adviseWithAction is the advice and the kind of its first step.
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
