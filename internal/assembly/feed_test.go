// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"time"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// feedText recognises one record's text of stream key as the processor does
// and gives it to a: a failure statement, allocation attempts, or, while
// the stream has an open failure, evidence. It returns closed with the
// failures that closed appended: the tests' stand-in for the processor's
// and explain's glue.
func feedText(a *Assembler, key uint64, text string, at, now time.Time, closed []Failure) []Failure {
	if !oom.MayContain(text) {
		if a.Open() {
			closed = a.Evidence(key, text, now, closed)
		}
		return closed
	}
	f := oom.Default().Find(text, true)
	switch {
	case f.Found == oom.FoundReport:
		_, closed = a.Statement(key, Statement{Report: &f.Report, At: at, Text: text}, now, closed)
	case f.Found == oom.FoundWarning && f.Warning.Kind == oom.WarningAllocationAttempt:
		closed = a.Attempted(key, f.Warning.Attempts, now, closed)
		if a.Open() {
			closed = a.Evidence(key, text, now, closed)
		}
	case a.Open():
		closed = a.Evidence(key, text, now, closed)
	}
	return closed
}
