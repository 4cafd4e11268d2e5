// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

// Compiled is the family table compiled, in matching order.
type Compiled struct {
	Families []Family
	Warnings []WarningFamily
	Attempts []int // the indexes in Warnings of the allocation attempts
}

// EachAttempt calls fn with each allocation attempt in flat: where it
// starts, what it reads and its request as printed. isAttempt, the
// verdict's, says whether a match at a position is one.
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

// HasAttempt reports whether flat holds an allocation attempt.
func (c *Compiled) HasAttempt(flat string, isAttempt func(at int) bool) bool {
	found := false
	c.EachAttempt(flat, isAttempt, func(int, *Report, string) { found = true })
	return found
}
