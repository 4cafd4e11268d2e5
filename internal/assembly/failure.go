// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package assembly assembles each stream's XLA OOM failures from their statements and evidence until they
// close (see Close) and oom.Decide gives the verdict; a failure keeps a fixed amount, the streams are bounded.
package assembly // import "github.com/xlaoom/xlaoomprocessor/internal/assembly"

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
	ClosedWentOn  Close = "went_on" // the program went on (wenton.go): no failure record
)

// Holder is an executable and the in-use bytes of its chunks in a dump.
type Holder struct {
	Program string
	Bytes   int64
	Chunks  int
}

// Failure is one assembled failure.
type Failure struct {
	Stream uint64 // the stream's key, as the caller gave it
	ID     string // the failure's id (xla.oom.failure.id), shared by its statements' records
	// Report merges every fact its records stated, with the verdict and action.
	Report   oom.Report
	Facts    oom.Facts    // what the whole job said of it: the verdict's input
	Decision oom.Decision // the verdict, its rule and, for unknown, the fact it lacked
	Attempts int          // the driver's refusals before it and in its statements
	Holders  []Holder     // the dumps' in-use chunks, most bytes first (MaxHolders)
	// Statements counts the records that state it, Records all it took.
	Statements, Records int
	// First and Last date its first and last statement (zero: undated).
	First, Last time.Time
	Opened      time.Time // buckets its xla.oom.incident.id (Assembler.opened)
	Closed      Close
	Origin      any // Statement.Origin's, the caller's: never read here
}

// Step is what the assembler says of a failure statement, for its record.
type Step struct {
	ID string
	// Verdict is the first known verdict a statement was given (those records
	// have left with it), else this one's own.
	Verdict  string
	Attempts int       // the refusals the failure has taken so far
	Opened   time.Time // the failure's Opened
}

// merge completes dst with a later statement's src; a known family's report
// takes the place of a last-resort (generic) one, which then only completes it.
func merge(dst *oom.Report, src *oom.Report) {
	if dst.Family == oom.FamilyGeneric && src.Family != oom.FamilyGeneric {
		base := *src
		completeWith(&base, dst)
		*dst = base
		return
	}
	completeWith(dst, src)
}

// completeWith fills the facts dst lacks from src; the classification, advice
// and verdict stay dst's.
func completeWith(dst, src *oom.Report) {
	for _, p := range []struct{ d, s *oom.Size }{
		{&dst.Requested, &src.Requested}, {&dst.Free, &src.Free}, {&dst.Used, &src.Used},
		{&dst.Capacity, &src.Capacity}, {&dst.Exceeded, &src.Exceeded}, {&dst.Reserved, &src.Reserved},
		{&dst.Reservable, &src.Reservable}, {&dst.PoolLimit, &src.PoolLimit}, {&dst.InUse, &src.InUse},
		{&dst.LargestFree, &src.LargestFree}, {&dst.PoolSize, &src.PoolSize},
	} {
		fill(p.d, *p.s)
	}
	for _, p := range []struct{ d, s *string }{
		{&dst.Backend, &src.Backend}, {&dst.MemorySpace, &src.MemorySpace}, {&dst.Program, &src.Program},
		{&dst.Device, &src.Device}, {&dst.Instruction, &src.Instruction}, {&dst.ExceptionType, &src.ExceptionType},
		{&dst.Cause, &src.Cause},
	} {
		if *p.d == "" {
			*p.d = *p.s
		}
	}
	if dst.MemoryHolder == "" || src.MemoryHolderSize.Bytes > dst.MemoryHolderSize.Bytes {
		if src.MemoryHolder != "" {
			dst.MemoryHolder, dst.MemoryHolderSize = src.MemoryHolder, src.MemoryHolderSize
		}
	}
	if !dst.HasReplica && src.HasReplica {
		dst.Replica, dst.HasReplica = src.Replica, true
	}
	if !dst.HasPartition && src.HasPartition {
		dst.Partition, dst.HasPartition = src.Partition, true
	}
	if !dst.Breakdown.Total.Known && len(dst.Breakdown.Allocations) == 0 {
		dst.Breakdown = src.Breakdown
	}
	if dst.Site.File == "" {
		dst.Site = src.Site
	}
	dst.OwnRefused = dst.OwnRefused || src.OwnRefused
	if dst.FitFraction == 0 {
		dst.FitFraction = src.FitFraction
	}
}
