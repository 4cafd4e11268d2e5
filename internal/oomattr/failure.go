// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomattr

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// The attributes of a failure record (event xla.oom.failure) besides Put's; FailureID is on each statement too.
const (
	FailureID         = "xla.oom.failure.id"
	FailureStatements = "xla.oom.failure.statements" // records that stated the failure
	FailureRecords    = "xla.oom.failure.records"    // every record it took
	FailureClosed     = "xla.oom.failure.closed"     // why it closed (assembly.Close)
	RetryRule         = "xla.oom.retry.rule"         // the rule that decided xla.oom.retry, or would have
	RetryMissing      = "xla.oom.retry.missing"      // for unknown: the fact that rule lacked (oom.Missing*)
	Framework         = "xla.framework"              // tensorflow, jax, pytorch_xla
	EarlierFailures   = "xla.oom.earlier_failures"   // the job's earlier attempts that failed the same way
	// Holders lists the executables the allocator's dump names, most bytes first: maps of HolderKey*.
	Holders = "xla.oom.holders"
)

// The failing device and pool as its process printed them at start-up, and the compiler's plan.
const (
	StartModel          = "xla.oom.start.device.model"
	StartCapacity       = "xla.oom.start.capacity.size"
	StartCapacitySource = "xla.oom.start.capacity.source" // tensorflow, nvidia-smi, model
	StartFree           = "xla.oom.start.free.size"
	StartHeld           = "xla.oom.start.held.size" // the total less the free, from one source
	StartSource         = "xla.oom.start.source"    // the source of free and held: tensorflow, nvidia-smi
	StartHolders        = "xla.oom.start.holders"   // the other processes nvidia-smi listed
	StartPoolLimit      = "xla.oom.start.pool_limit.size"
	StartPoolBasis      = "xla.oom.start.pool.basis" // share (of the total), free_at_start
	PlanPeak            = "xla.oom.plan.peak.size"
	PlanLimit           = "xla.oom.plan.limit.size"
	PlanSource          = "xla.oom.plan.source" // scheduler, rematerialization
)

// Keys of one map in xla.oom.holders.
const (
	HolderKeyProgram = "program"
	HolderKeySize    = "size"
	HolderKeyChunks  = "chunks"
)

// The semantic conventions' code location: the failure's site, the user's frame that asked.
const (
	CodeFilePath     = "code.file.path"
	CodeLineNumber   = "code.line.number"
	CodeFunctionName = "code.function.name"
)

// PutFailure writes failure f onto attrs: its report (at most top allocations) and the failure's own attributes.
func PutFailure(f *assembly.Failure, attrs pcommon.Map, top int) {
	PutTop(f.Report, attrs, top)
	attrs.PutStr(FailureID, f.ID)
	attrs.PutInt(FailureStatements, int64(f.Statements))
	attrs.PutInt(FailureRecords, int64(f.Records))
	attrs.PutStr(FailureClosed, string(f.Closed))
	putStr(attrs, RetryRule, f.Decision.Rule)
	putStr(attrs, RetryMissing, f.Decision.Missing)
	if f.Attempts > 0 {
		attrs.PutInt(Attempts, int64(f.Attempts))
	}
	if f.Facts.Earlier > 0 {
		attrs.PutInt(EarlierFailures, int64(f.Facts.Earlier))
	}
	putStart(f.Facts.Start, attrs)
	if len(f.Holders) > 0 {
		s := attrs.PutEmptySlice(Holders)
		s.EnsureCapacity(len(f.Holders))
		for _, h := range f.Holders {
			m := s.AppendEmpty().SetEmptyMap()
			m.PutStr(HolderKeyProgram, h.Program)
			m.PutInt(HolderKeySize, h.Bytes)
			m.PutInt(HolderKeyChunks, int64(h.Chunks))
		}
	}
}

func putStart(d oom.Device, attrs pcommon.Map) {
	putStr(attrs, StartModel, d.Model)
	putKnown(attrs, StartCapacity, d.Capacity)
	putStr(attrs, StartCapacitySource, d.CapacitySource)
	if d.Free.Known && d.FreeTotal.Known {
		attrs.PutInt(StartFree, d.Free.Bytes)
		attrs.PutInt(StartHeld, max(d.FreeTotal.Bytes-d.Free.Bytes, 0))
		putStr(attrs, StartSource, d.FreeSource)
	}
	if len(d.Holders) > 0 {
		putStrings(attrs, StartHolders, d.Holders)
	}
	putKnown(attrs, StartPoolLimit, d.Pool)
	putStr(attrs, StartPoolBasis, d.PoolBasis)
	putKnown(attrs, PlanPeak, d.PlanPeak)
	putKnown(attrs, PlanLimit, d.PlanLimit)
	putStr(attrs, PlanSource, d.PlanSource)
}

// FailureBody is the failure record's body: what failed, how big, who held the memory, where, the verdict.
func FailureBody(f *assembly.Failure) string {
	r := &f.Report
	var b strings.Builder
	b.WriteString("XLA OOM failure " + r.Code)
	if r.Name != "" {
		b.WriteString(" " + r.Name)
	}
	switch {
	case r.Requested.Known:
		b.WriteString(": " + oom.HumanBytes(r.Requested.Bytes) + " requested")
	case r.Used.Known && r.Capacity.Known:
		b.WriteString(": " + oom.HumanBytes(r.Used.Bytes) + " needed, " + oom.HumanBytes(r.Capacity.Bytes) + " available")
	}
	if r.PoolLimit.Known && r.InUse.Known {
		b.WriteString(", " + oom.HumanBytes(r.InUse.Bytes) + " of " + oom.HumanBytes(r.PoolLimit.Bytes) + " in use")
	}
	if r.Program != "" {
		b.WriteString(", program " + r.Program)
	}
	if r.MemoryHolder != "" {
		b.WriteString(", memory held by " + r.MemoryHolder)
	}
	if r.Site.File != "" {
		b.WriteString(", at " + r.Site.String())
	}
	b.WriteString(retryText(f.Decision))
	return b.String()
}

// retryText ends a failure record's body: the verdict and its rule.
func retryText(d oom.Decision) string {
	s := "; retry " + d.Verdict
	switch {
	case d.Missing != "":
		s += " (" + d.Rule + " lacks " + d.Missing + ")"
	case d.Rule != "":
		s += " (" + d.Rule + ")"
	}
	return s
}

// WithDecision is a failure record's body with its verdict made d.
func WithDecision(body string, d oom.Decision) string {
	if i := strings.LastIndex(body, "; retry "); i >= 0 {
		body = body[:i]
	}
	return body + retryText(d)
}
