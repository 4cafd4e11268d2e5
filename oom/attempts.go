// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "slices"

// Allocation attempts in a record (families_attempts.go): what a failure's
// record counts and what a record with no failure reports as a warning.

// compiled is the family table compiled: the failure families and the
// memory-pressure warnings in matching order, and where the allocation
// attempts are among the warnings.
type compiled struct {
	families []family        // failure families, in matching order
	warnings []warningFamily // memory-pressure warnings, in matching order
	attempts []int           // the indexes in warnings of the allocation attempts
}

// attemptSeries gathers the attempts of one text.
type attemptSeries struct {
	count           int
	first, last     Size // the requests of the first and the last attempt in the text
	firstAt, lastAt int
	exact           []Size // the exact requests printed, for the failing request's exact bytes
}

func (s *attemptSeries) add(at int, r *Report, requested string) {
	if s.count == 0 || at < s.firstAt {
		s.first, s.firstAt = r.Requested, at
	}
	if s.count == 0 || at > s.lastAt {
		s.last, s.lastAt = r.Requested, at
	}
	s.count++
	if r.Requested.Known && isExactToken(requested) && len(s.exact) < maxCandidates {
		s.exact = append(s.exact, r.Requested)
	}
}

// eachAttempt calls fn with each allocation attempt in flat: where it
// starts, what it reads and its request as printed. Matches that the
// speaker of their statement (st) says are no attempt are left out
// (speakers.go).
func (c *compiled) eachAttempt(flat string, st *statements, fn func(at int, r *Report, requested string)) {
	for _, i := range c.attempts {
		w := &c.warnings[i]
		w.each(flat, func(m match) {
			if st.notAttempt(m.start()) {
				return
			}
			r := Report{Backend: w.backend}
			readStandardGroups(&r, m)
			if w.read == nil || w.read(&r, m) {
				fn(m.start(), &r, requestedToken(m))
			}
		})
	}
}

// exactFromAttempt gives r the exact byte count of an attempt that asked
// for the very request that failed (the platform allocator logs the driver's
// refusal of the request itself, "11.18GiB (12000000000 bytes)", before the
// status "Out of memory while trying to allocate 11.18GiB"). No other size
// of an attempt reaches a failure.
// It reports whether one did: that attempt is the failure's own request,
// not a refusal on the way to it.
func exactFromAttempt(r *Report, printed string, s *attemptSeries) bool {
	if printed == "" || !r.Requested.Known {
		return false
	}
	if isExactToken(printed) {
		return slices.Contains(s.exact, r.Requested)
	}
	binary := len(printed) > 2 && printed[len(printed)-2:] == "iB"
	for _, e := range s.exact {
		if formatHuman(e.Bytes, binary) == printed {
			r.Requested = e
			return true
		}
	}
	return false
}

// hasAttempt reports whether flat holds an allocation attempt: the
// last-resort layer leaves such an entry alone (a refusal at ERROR is not a
// failure).
func (c *compiled) hasAttempt(flat string, st *statements) bool {
	found := false
	c.eachAttempt(flat, st, func(int, *Report, string) { found = true })
	return found
}
