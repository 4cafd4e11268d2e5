// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

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
// starts, what it reads and its request as printed. isAttempt, the
// verdict's, says whether a match at a position is one (another program's
// words or a status XLA raised are not).
func (c *Compiled) EachAttempt(flat string, isAttempt func(at int) bool, fn func(at int, r *Report, requested string)) {
	for _, i := range c.Attempts {
		w := &c.Warnings[i]
		w.Each(flat, func(m Match) {
			if !isAttempt(m.Start()) {
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
func (c *Compiled) HasAttempt(flat string, isAttempt func(at int) bool) bool {
	found := false
	c.EachAttempt(flat, isAttempt, func(int, *Report, string) { found = true })
	return found
}
