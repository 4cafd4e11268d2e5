// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package verdict

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Candidate is one family match.
type Candidate struct {
	F              *grammar.Family
	At             int
	R              grammar.Report
	RequestedToken string // Requested as printed
}

// Primary picks the failure: the earliest returned status, else the earliest
// log-only line. It returns -1 when there is none.
func Primary(c []Candidate) int {
	best := -1
	for i := range c {
		iFatal, bestFatal := c[i].F.Kind == grammar.Fatal, best >= 0 && c[best].F.Kind == grammar.Fatal
		if best < 0 || iFatal && !bestFatal || iFatal == bestFatal && c[i].At < c[best].At {
			best = i
		}
	}
	return best
}
