// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
)

// Allocation attempts in a record (families/families_attempts.go): what a failure's
// record counts and what a record with no failure reports as a warning.

// Compiled is the family table compiled: the failure families and the
// memory-pressure warnings in matching order, and where the allocation
// attempts are among the warnings.
type Compiled struct {
	Families []Family        // failure families, in matching order
	Warnings []WarningFamily // memory-pressure warnings, in matching order
	Attempts []int           // the indexes in warnings of the allocation attempts
}

// EachAttempt calls fn with each allocation attempt in flat: where it
// starts, what it reads and its request as printed. Matches that the
// speaker of their statement (st) says are no attempt are left out
// (oom/speakers.go).
func (c *Compiled) EachAttempt(flat string, st *speaker.Statements, fn func(at int, r *Report, requested string)) {
	for _, i := range c.Attempts {
		w := &c.Warnings[i]
		w.Each(flat, func(m Match) {
			if st.NotAttempt(m.Start()) {
				return
			}
			r := Report{Backend: w.Backend}
			ReadStandardGroups(&r, m)
			if w.Read == nil || w.Read(&r, m) {
				fn(m.Start(), &r, RequestedToken(m))
			}
		})
	}
}

// HasAttempt reports whether flat holds an allocation attempt: the
// last-resort layer leaves such an entry alone (a refusal at ERROR is not a
// failure).
func (c *Compiled) HasAttempt(flat string, st *speaker.Statements) bool {
	found := false
	c.EachAttempt(flat, st, func(int, *Report, string) { found = true })
	return found
}
