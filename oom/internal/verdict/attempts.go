// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package verdict

import (
	"slices"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// AttemptSeries gathers the attempts of one text.
type AttemptSeries struct {
	Count           int
	First, Last     grammar.Size // the requests of the first and the last attempt in the text
	firstAt, lastAt int
	exact           []grammar.Size // the exact requests printed, for the failing request's exact bytes
}

// Add counts one attempt: where it starts, what it reads and its request as
// printed.
func (s *AttemptSeries) Add(at int, r *grammar.Report, requested string) {
	if s.Count == 0 || at < s.firstAt {
		s.First, s.firstAt = r.Requested, at
	}
	if s.Count == 0 || at > s.lastAt {
		s.Last, s.lastAt = r.Requested, at
	}
	s.Count++
	if r.Requested.Known && grammar.IsExactToken(requested) && len(s.exact) < grammar.MaxCandidates {
		s.exact = append(s.exact, r.Requested)
	}
}

// ExactFromAttempt gives r the exact byte count of an attempt that asked
// for the very request that failed (the platform allocator logs the driver's
// refusal of the request itself, "11.18GiB (12000000000 bytes)", before the
// status "Out of memory while trying to allocate 11.18GiB"), and reports
// whether one did: that attempt is the failure's own request.
func ExactFromAttempt(r *grammar.Report, printed string, s *AttemptSeries) bool {
	if printed == "" || !r.Requested.Known {
		return false
	}
	if grammar.IsExactToken(printed) {
		return slices.Contains(s.exact, r.Requested)
	}
	binary := len(printed) > 2 && printed[len(printed)-2:] == "iB"
	for _, e := range s.exact {
		if grammar.FormatHuman(e.Bytes, binary) == printed {
			r.Requested = e
			return true
		}
	}
	return false
}
