// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package failure

import (
	"time"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Record is what the assembler is given of one log record of a stream.
type Record struct {
	// Time is the record's own time; zero when it has none.
	Time time.Time
	// Text is the record's text. It is read for evidence only while its
	// stream has an open failure, and never kept.
	Text string
	// Finding is what the recogniser found in the record; nil or
	// FoundNothing for a record that is not a statement.
	Finding *oom.Finding
}

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
	// ClosedWentOn: the program went on (wenton.go); the job did not fail
	// of it, and no failure record is made.
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
	// Report holds every fact the failure's records stated, merged (the
	// first statement's, completed by the later ones and the evidence), with
	// its verdict (Report.Retry) and action decided on all of them.
	Report oom.Report
	// Rule is the retry rule that decided the verdict ("" for none).
	Rule string
	// Refused counts the driver's refusals that came with the failure: the
	// attempts before it and those in its statements.
	Refused int
	// Holders are the executables whose chunks the dumps attribute in-use
	// bytes to, most bytes first (at most MaxHolders).
	Holders []Holder
	// Statements counts the failure's statements (records the recogniser
	// found it in), Records every record it took.
	Statements, Records int
	// First and Last are the record times of its first and last statement
	// (zero when undated).
	First, Last time.Time
	// Opened is the time the failure's incident (xla.oom.incident.id) is
	// bucketed by, fixed when it opened: its first statement's time, else
	// its arrival, or that of its job's incident open within the window.
	Opened time.Time
	Closed Close
	// Origin is what the caller gave when the failure opened (Statement's
	// origin): the stream's identity in its own types. Never read here.
	Origin any
}

// Step is what the assembler says of a failure statement, for the tags of
// its record: the failure it belongs to and the verdict its earlier
// statements were given.
type Step struct {
	ID string
	// Verdict is the statement's verdict: the first verdict other than
	// unknown that a statement of the failure was given (the earliest
	// records have left with it), else the statement's own read with the
	// refusals so far.
	Verdict string
	// Refused counts the refusals the failure has taken so far.
	Refused int
	Opened  time.Time // the failure's Opened
}
