// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package role

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Candidate is one family match that may be the failure: its role is Failure or FailureUnlessStatus.
type Candidate struct {
	F              *grammar.Family
	Role           Role
	At             int
	R              grammar.Report
	RequestedToken string // Requested as printed
}

// Primary picks the failure: the earliest Failure, else the earliest FailureUnlessStatus; -1 for none.
func Primary(c []Candidate) int {
	best := -1
	for i := range c {
		iFirm, bestFirm := c[i].Role == Failure, best >= 0 && c[best].Role == Failure
		if best < 0 || iFirm && !bestFirm || iFirm == bestFirm && c[i].At < c[best].At {
			best = i
		}
	}
	return best
}

// KindOf is the statement kind of a failure family's match.
func KindOf(k grammar.FamilyKind) Kind {
	if k == grammar.Fatal {
		return Status
	}
	return LogLine
}

// MergeFrom fills fields r left empty from another message of the record (set fields are never overwritten, so
// the failure's own values win); sizes and memory details move only between messages of one code.
func MergeFrom(r, o *grammar.Report) {
	details.SetString(&r.Device, o.Device)
	if r.Backend == "" {
		r.Backend = o.Backend
	}
	if o.Code != r.Code {
		return
	}
	details.SetString(&r.MemorySpace, o.MemorySpace)
	details.SetString(&r.Instruction, o.Instruction)
	for _, f := range [...]struct{ dst, src *grammar.Size }{
		{&r.Requested, &o.Requested}, {&r.Free, &o.Free}, {&r.Used, &o.Used}, {&r.Capacity, &o.Capacity},
		{&r.Exceeded, &o.Exceeded}, {&r.Reserved, &o.Reserved}, {&r.Reservable, &o.Reservable}, {&r.PoolLimit, &o.PoolLimit},
	} {
		if !f.dst.Known {
			*f.dst = *f.src
		}
	}
	if r.Words == (grammar.SparseCoreWords{}) {
		r.Words = o.Words
	}
}

// PreferExact gives r the exact request another message prints for the same allocation when r's is rounded
// ("allocate 93.13GiB" after the allocator's "93.13GiB (rounded to 100000000000)").
func PreferExact(r *grammar.Report, printed string, o *Candidate) {
	if printed == "" || grammar.IsExactToken(printed) || !grammar.IsExactToken(o.RequestedToken) || !o.R.Requested.Known || o.R.Code != r.Code {
		return
	}
	if grammar.FormatHuman(o.R.Requested.Bytes, strings.HasSuffix(printed, "iB")) == printed {
		r.Requested = o.R.Requested
	}
}

// AttemptSeries gathers the attempts of one text.
type AttemptSeries struct {
	Count           int
	First, Last     grammar.Size // the requests of the first and the last attempt in the text
	firstAt, lastAt int
	exact           []grammar.Size // the exact requests printed, for the failing request's exact bytes
}

// Add counts one attempt: where it starts, what it reads and its request as printed.
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

// ExactFromAttempt gives r the exact byte count of an attempt for the very request that failed (the platform
// allocator logs the refusal "11.18GiB (12000000000 bytes)" before the status) and reports whether one did.
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
