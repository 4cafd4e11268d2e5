// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package failure

import (
	"time"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Close says why a failure closed.
type Close string

// The reasons a failure closes.
const (
	ClosedRaised  Close = "raised"  // at the status the program raised
	ClosedNext    Close = "next"    // the stream's next failure opened
	ClosedQuiet   Close = "quiet"   // the quiet interval passed with nothing from the stream
	ClosedBound   Close = "bound"   // it took the most records one failure may
	ClosedEvicted Close = "evicted" // its stream was evicted to keep the bound on streams
	ClosedFlush   Close = "flush"   // the caller flushed: shutdown, the end of an input
	// ClosedWentOn: the program went on (wenton.go): no failure record.
	ClosedWentOn Close = "went_on"
)

// Holder is an executable and the in-use bytes its chunks hold in the
// allocator's dump.
type Holder struct {
	Program string
	Bytes   int64
	Chunks  int
}

// Failure is one assembled failure.
type Failure struct {
	Stream uint64 // the stream's key, as the caller gave it
	ID     string // the failure's id (xla.oom.failure.id), shared by its statements' records
	// Report holds every fact its records stated, merged, with the verdict
	// and action decided on all of them.
	Report oom.Report
	// Rule is the retry rule that decided the verdict ("" for none).
	Rule string
	// Refused counts the driver's refusals before it and in its statements.
	Refused int
	// Holders hold the dumps' in-use chunks, most bytes first (MaxHolders).
	Holders []Holder
	// Statements counts the records that state it, Records all it took.
	Statements, Records int
	// First and Last date its first and last statement (zero: undated).
	First, Last time.Time
	// Opened buckets its xla.oom.incident.id, fixed when it opened (see
	// Assembler.opened).
	Opened time.Time
	Closed Close
	// Origin is Statement.Origin's, the caller's: never read here.
	Origin any
}

// Step is what the assembler says of a failure statement, for its record.
type Step struct {
	ID string
	// Verdict is the first known verdict a statement of the failure was
	// given (those records have left with it), else this one's own.
	Verdict string
	// Refused counts the refusals the failure has taken so far.
	Refused int
	Opened  time.Time // the failure's Opened
}
