// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package verdict

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Candidate is one family match that may be the failure: its verdict is
// Failure or FailureUnlessStatus.
type Candidate struct {
	F              *grammar.Family
	Verdict        Verdict
	At             int
	R              grammar.Report
	RequestedToken string // Requested as printed
}

// Primary picks the failure: the earliest Failure, else the earliest
// FailureUnlessStatus. It returns -1 when there is none.
func Primary(c []Candidate) int {
	best := -1
	for i := range c {
		iFirm, bestFirm := c[i].Verdict == Failure, best >= 0 && c[best].Verdict == Failure
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
