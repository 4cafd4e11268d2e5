// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Finding is one XLA OOM failure, stated by one record or several
// (failures.go), or one memory-pressure warning: a record that holds one and
// no failure, or the allocation attempts that no failure followed.
type Finding struct {
	Source string // file name, or "stdin"
	Line   int    // line number of the first line of the finding's first record
	// Failure is set for an OOM (Whole.Report once it closed), else Warning.
	Failure *oom.Report
	Warning *oom.Warning
	ID      string           // the failure's id in the stage
	Whole   *failure.Failure // the failure it closed as
	// Attributes are what the processor writes on the failure's or the
	// warning's record, but for the incident and failure ids (a file has no
	// resource).
	Attributes pcommon.Map
	// Lines are the first lines of every record the finding gathers, Line
	// first; Later the failures the records after the first state.
	Lines []int
	Later []*oom.Report
	// Attempts are the allocation attempts the failure came after, or those
	// of an allocation_attempt warning.
	Attempts Attempts
	// Retry and FitFraction are the whole failure's (unset on a warning).
	Retry       string
	FitFraction float64
}

// WentOn reports whether the failure's program caught it and went on: not
// a failure of the job (internal/failure, wenton.go).
func (f *Finding) WentOn() bool { return f.Whole != nil && f.Whole.Closed == failure.ClosedWentOn }

// Generic reports whether the failure belongs to no known message family:
// only the last-resort layer recognised it.
func (f *Finding) Generic() bool { return f.Failure != nil && f.Failure.Family == oom.FamilyGeneric }

// The processor's defaults: a text longer than maxScanSize is not read, and
// topAllocations allocations are listed.
var (
	maxScanSize    = oomrecord.DefaultSources().MaxScanSize
	topAllocations = oomattr.DefaultTopAllocations
)
