// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package oomattr is the attribute contract between an oom.Report and a log record: the processor writes it,
// the connector reads it back, so a record tagged upstream is never parsed twice.
package oomattr

import (
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Attribute keys: a stable contract that dashboards, alerts and the connector depend on.
const (
	ErrorCode     = "xla.error.code"
	ErrorName     = "xla.error.name"
	ErrorCategory = "xla.error.category"
	ErrorPhase    = "xla.error.phase"
	ErrorDocURL   = "xla.error.doc_url"
	ErrorType     = "error.type"
	// ExceptionType is the semantic conventions' exception.type; one the record carries is never overwritten.
	ExceptionType = "exception.type"
	Backend       = "xla.backend"
	MemorySpace   = "xla.memory.space"
	Requested     = "xla.oom.requested.size"
	Free          = "xla.oom.free.size"
	Used          = "xla.oom.used.size"
	Capacity      = "xla.oom.capacity.size"
	Exceeded      = "xla.oom.exceeded.size"
	Reserved      = "xla.oom.reserved.size"
	Reservable    = "xla.oom.reservable.size"
	PoolLimit     = "xla.oom.pool_limit.size"
	InUse         = "xla.oom.in_use.size"       // the pool's in-use bytes (the allocator's Stats)
	LargestFree   = "xla.oom.largest_free.size" // the pool's largest free chunk
	PoolSize      = "xla.oom.pool.size"         // what the pool claimed from the device
	Program       = "xla.program.name"
	Replica       = "xla.replica"
	Partition     = "xla.partition"
	Device        = "xla.device"
	Cause         = "xla.oom.cause"
	Remediation   = "xla.remediation"

	// Memory breakdown totals (TPU compile-time, GPU BufferAssignment stats, XRT program load).
	Total             = "xla.oom.total.size"
	RuntimeReserved   = "xla.oom.runtime_reserved.size"
	ProgramSize       = "xla.oom.program.size"
	Arguments         = "xla.oom.arguments.size"
	Output            = "xla.oom.output.size"
	OutputShared      = "xla.oom.output.shared.size"
	Temp              = "xla.oom.temp.size"
	TempFragmentation = "xla.oom.temp.fragmentation.size"
	Fragmentation     = "xla.oom.fragmentation.size"
	Padding           = "xla.oom.padding.size"
	Allocated         = "xla.oom.allocated.size"
	AvailableAfter    = "xla.oom.available_after.size"

	// Allocations lists the largest allocations (maps of AllocationKey*); culprit and largest input are flattened.
	Allocations       = "xla.oom.allocations"
	CulpritOp         = "xla.oom.culprit.op"
	CulpritSource     = "xla.oom.culprit.source"
	CulpritSize       = "xla.oom.culprit.size"
	CulpritShape      = "xla.oom.culprit.shape"
	LargestInputSize  = "xla.oom.largest_input.size"
	LargestInputShape = "xla.oom.largest_input.shape"

	// Incident is the same on the copies of one failure logged by every host of a job (package incident).
	Incident = "xla.oom.incident.id"

	// Attempts counts the driver refusals an allocator retries: a failure's on the way, all of a warning's record.
	Attempts = "xla.oom.attempts"
	// AttemptLast is the last refused request of several (xla.oom.requested.size is the first).
	AttemptLast = "xla.oom.attempt.last.size"

	// Retry says whether the same program again can succeed: futile, may_help or unknown.
	Retry = "xla.oom.retry"
	// Action is the kind of the first remediation step (oom.Actions).
	Action = "xla.oom.action"
)

// Log event names (plog.LogRecord.EventName); a record's own event name is never overwritten.
const (
	EventStatement = "xla.oom"
	EventFailure   = "xla.oom.failure"
	EventWarning   = "xla.memory.warning"
)

// Keys of one map in xla.oom.allocations.
const (
	AllocationSize         = "size"
	AllocationOp           = "op"
	AllocationSource       = "source"
	AllocationShape        = "shape"
	AllocationUnpaddedSize = "unpadded_size"
	AllocationPaddingSize  = "padding_size"
	AllocationExpansion    = "expansion"
	AllocationLabel        = "label"
	AllocationType         = "type"
)

// DefaultTopAllocations is how many allocations Put writes, explain's default too.
const DefaultTopAllocations = 5

// field pairs an attribute with its Report (or Warning) field, so Put and Get cannot drift apart.
type field[T any] struct {
	key   string
	value *T
}

func sizeFields(r *oom.Report) []field[oom.Size] {
	return []field[oom.Size]{
		{Requested, &r.Requested}, {Free, &r.Free}, {Used, &r.Used}, {Capacity, &r.Capacity},
		{Exceeded, &r.Exceeded}, {Reserved, &r.Reserved}, {Reservable, &r.Reservable}, {PoolLimit, &r.PoolLimit},
		{InUse, &r.InUse}, {LargestFree, &r.LargestFree}, {PoolSize, &r.PoolSize},
		{Total, &r.Breakdown.Total}, {RuntimeReserved, &r.Breakdown.Reserved}, {ProgramSize, &r.Breakdown.Program},
		{Arguments, &r.Breakdown.Arguments}, {Output, &r.Breakdown.Output}, {OutputShared, &r.Breakdown.OutputShared},
		{Temp, &r.Breakdown.Temp}, {TempFragmentation, &r.Breakdown.TempFragmentation},
		{Fragmentation, &r.Breakdown.Fragmentation}, {Padding, &r.Breakdown.Padding},
		{Allocated, &r.Breakdown.Allocated}, {AvailableAfter, &r.Breakdown.AvailableAfter},
		{HolderSize, &r.MemoryHolderSize},
	}
}

func stringFields(r *oom.Report) []field[string] {
	return []field[string]{
		{ErrorCode, &r.Code}, {ErrorName, &r.Name}, {ErrorCategory, &r.Category}, {ErrorPhase, &r.Phase},
		{ErrorDocURL, &r.DocURL}, {Backend, &r.Backend}, {MemorySpace, &r.MemorySpace},
		{Program, &r.Program}, {Device, &r.Device}, {Cause, &r.Cause}, {HolderProgram, &r.MemoryHolder},
		{Retry, &r.Retry}, {Action, &r.Action}, {Framework, &r.Framework},
	}
}

// Put writes r onto attrs with the default number of allocations.
func Put(r oom.Report, attrs pcommon.Map) { PutTop(r, attrs, DefaultTopAllocations) }

// PutTop writes r onto attrs but empty strings and unknown sizes, top allocations at most (and culprit, largest input).
func PutTop(r oom.Report, attrs pcommon.Map, top int) {
	attrs.EnsureCapacity(attrs.Len() + 16)
	for _, f := range stringFields(&r) {
		putStr(attrs, f.key, *f.value)
	}
	attrs.PutStr(ErrorType, r.Code)
	if _, set := attrs.Get(ExceptionType); !set && r.ExceptionType != "" {
		attrs.PutStr(ExceptionType, r.ExceptionType)
	}
	if r.Family == oom.FamilyGeneric {
		attrs.PutBool(Generic, true)
	}
	for _, f := range sizeFields(&r) {
		putKnown(attrs, f.key, *f.value)
	}
	if r.HasReplica {
		attrs.PutInt(Replica, r.Replica)
	}
	if r.Attempts > 0 {
		attrs.PutInt(Attempts, int64(r.Attempts))
	}
	if r.HasPartition {
		attrs.PutInt(Partition, r.Partition)
	}
	if len(r.Remediation) > 0 {
		putStrings(attrs, Remediation, r.Remediation)
	}
	putAllocations(&r.Breakdown, attrs, top)
	if r.Site.File != "" {
		attrs.PutStr(CodeFilePath, r.Site.File)
		attrs.PutInt(CodeLineNumber, r.Site.Line)
		putStr(attrs, CodeFunctionName, r.Site.Function)
	}
}

func putAllocations(b *oom.Breakdown, attrs pcommon.Map, top int) {
	if n := min(top, len(b.Allocations)); n > 0 {
		s := attrs.PutEmptySlice(Allocations)
		s.EnsureCapacity(n)
		for i := range n {
			putAllocation(&b.Allocations[i], s.AppendEmpty().SetEmptyMap())
		}
	}
	if i := b.Culprit(); i >= 0 {
		a := &b.Allocations[i]
		attrs.PutStr(CulpritOp, a.OpName)
		putStr(attrs, CulpritSource, a.Source())
		attrs.PutInt(CulpritSize, a.Size.Bytes)
		putStr(attrs, CulpritShape, a.Shape)
	}
	if i := b.LargestInput(); i >= 0 {
		a := &b.Allocations[i]
		attrs.PutInt(LargestInputSize, a.Size.Bytes)
		putStr(attrs, LargestInputShape, a.Shape)
	}
}

func putAllocation(a *oom.Allocation, m pcommon.Map) {
	putKnown(m, AllocationSize, a.Size)
	putStr(m, AllocationOp, a.OpName)
	putStr(m, AllocationSource, a.Source())
	putStr(m, AllocationShape, a.Shape)
	putKnown(m, AllocationUnpaddedSize, a.Unpadded)
	putKnown(m, AllocationPaddingSize, a.Padding)
	if a.Expansion > 0 {
		m.PutDouble(AllocationExpansion, a.Expansion)
	}
	putStr(m, AllocationLabel, a.Label)
	putStr(m, AllocationType, a.Type)
}

func putStr(attrs pcommon.Map, k, v string) {
	if v != "" {
		attrs.PutStr(k, v)
	}
}

func putStrings(attrs pcommon.Map, k string, values []string) {
	s := attrs.PutEmptySlice(k)
	s.EnsureCapacity(len(values))
	for _, v := range values {
		s.AppendEmpty().SetStr(v)
	}
}

func putKnown(m pcommon.Map, k string, s oom.Size) {
	if s.Known {
		m.PutInt(k, s.Bytes)
	}
}

func getAllocation(m pcommon.Map) oom.Allocation {
	var a oom.Allocation
	a.Size, a.Unpadded, a.Padding = getSize(m, AllocationSize), getSize(m, AllocationUnpaddedSize), getSize(m, AllocationPaddingSize)
	a.OpName, a.Shape = GetStr(m, AllocationOp), GetStr(m, AllocationShape)
	a.Label, a.Type = GetStr(m, AllocationLabel), GetStr(m, AllocationType)
	if src := GetStr(m, AllocationSource); src != "" {
		a.SourceFile = src
		if i := strings.LastIndexByte(src, ':'); i > 0 {
			if n, err := strconv.ParseInt(src[i+1:], 10, 64); err == nil {
				a.SourceFile, a.SourceLine = src[:i], n
			}
		}
	}
	if v, ok := m.Get(AllocationExpansion); ok && v.Type() == pcommon.ValueTypeDouble {
		a.Expansion = v.Double()
	}
	return a
}

// GetStr and getInt read a value of their type; one of another type is absent, never trusted.
func GetStr(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok && v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return ""
}

func getInt(m pcommon.Map, k string) (int64, bool) {
	if v, ok := m.Get(k); ok && v.Type() == pcommon.ValueTypeInt {
		return v.Int(), true
	}
	return 0, false
}

func getSize(m pcommon.Map, k string) oom.Size {
	if n, ok := getInt(m, k); ok {
		return oom.KnownSize(n)
	}
	return oom.Size{}
}

// Tagged reports whether attrs already carry an XLA OOM tag.
func Tagged(attrs pcommon.Map) bool {
	_, ok := attrs.Get(ErrorCode)
	return ok
}

// Get reads back a Report written by Put; false when attrs carry no xla.error.code.
func Get(attrs pcommon.Map) (oom.Report, bool) {
	code, ok := attrs.Get(ErrorCode)
	if !ok || code.Type() != pcommon.ValueTypeStr || code.Str() == "" {
		return oom.Report{}, false
	}
	var r oom.Report // declared after the check: it escapes, and most records are not tagged
	for _, f := range stringFields(&r) {
		*f.value = GetStr(attrs, f.key)
	}
	for _, f := range sizeFields(&r) {
		*f.value = getSize(attrs, f.key)
	}
	if IsGeneric(attrs) {
		r.Family = oom.FamilyGeneric
	}
	line, _ := getInt(attrs, CodeLineNumber)
	r.Site = oom.Site{File: GetStr(attrs, CodeFilePath), Line: line, Function: GetStr(attrs, CodeFunctionName)}
	r.ExceptionType = GetStr(attrs, ExceptionType)
	r.Replica, r.HasReplica = getInt(attrs, Replica)
	r.Partition, r.HasPartition = getInt(attrs, Partition)
	attempts, _ := getInt(attrs, Attempts)
	r.Attempts = int(attempts)
	if v, ok := attrs.Get(Remediation); ok && v.Type() == pcommon.ValueTypeSlice {
		s := v.Slice()
		r.Remediation = make([]string, 0, s.Len())
		for i := 0; i < s.Len(); i++ {
			r.Remediation = append(r.Remediation, s.At(i).AsString())
		}
	}
	if v, ok := attrs.Get(Allocations); ok && v.Type() == pcommon.ValueTypeSlice {
		s := v.Slice()
		r.Breakdown.Allocations = make([]oom.Allocation, 0, s.Len())
		for i := 0; i < s.Len(); i++ {
			if e := s.At(i); e.Type() == pcommon.ValueTypeMap {
				r.Breakdown.Allocations = append(r.Breakdown.Allocations, getAllocation(e.Map()))
			}
		}
	}
	return r, true
}

// Generic marks a last-resort finding (oom.FamilyGeneric), so a query finds the messages xla_oom does not know yet.
const Generic = "xla.oom.generic"

// Keys of the BFC allocator dump's memory holder: the executable whose in-use chunks hold the most bytes.
const (
	HolderProgram = "xla.oom.holder.program"
	HolderSize    = "xla.oom.holder.size"
)

// IsGeneric reports whether attrs carry the last-resort mark.
func IsGeneric(attrs pcommon.Map) bool {
	v, ok := attrs.Get(Generic)
	return ok && v.Type() == pcommon.ValueTypeBool && v.Bool()
}

// Attribute keys of a memory-pressure warning; never xla.error.code or error.type, so no failure count counts it.
const (
	// WarningKind: rematerialization, allocator_retry, allocation_attempt, autotune_fallback or memory_usage.
	WarningKind = "xla.memory.warning"
	// WarningExplanation says in one sentence what happened and what it costs.
	WarningExplanation = "xla.memory.warning.explanation"
)

func warningSizes(w *oom.Warning) [5]field[oom.Size] {
	return [5]field[oom.Size]{{Requested, &w.Requested}, {Used, &w.Used}, {Free, &w.Free}, {Capacity, &w.Capacity}, {AttemptLast, &w.Last}}
}

// warningStrings are a warning's string attributes; its phase follows from the kind and is not written.
func warningStrings(w *oom.Warning) [4]field[string] {
	return [4]field[string]{{WarningKind, &w.Kind}, {WarningExplanation, &w.Explanation}, {Backend, &w.Backend}, {Device, &w.Device}}
}

// PutWarning writes w onto attrs. Empty strings and unknown sizes are left out.
func PutWarning(w oom.Warning, attrs pcommon.Map) {
	attrs.EnsureCapacity(attrs.Len() + 8)
	for _, f := range warningStrings(&w) {
		putStr(attrs, f.key, *f.value)
	}
	for _, f := range warningSizes(&w) {
		putKnown(attrs, f.key, *f.value)
	}
	if w.Attempts > 0 {
		attrs.PutInt(Attempts, int64(w.Attempts))
	}
}

// Warned reports whether attrs already carry a memory-warning tag.
func Warned(attrs pcommon.Map) bool {
	_, ok := attrs.Get(WarningKind)
	return ok
}

// GetWarning reads back PutWarning's warning; false without xla.memory.warning or with xla.error.code (a failure).
func GetWarning(attrs pcommon.Map) (oom.Warning, bool) {
	kind, ok := attrs.Get(WarningKind)
	if !ok || kind.Type() != pcommon.ValueTypeStr || kind.Str() == "" || Tagged(attrs) {
		return oom.Warning{}, false
	}
	var w oom.Warning
	for _, f := range warningStrings(&w) {
		*f.value = GetStr(attrs, f.key)
	}
	for _, f := range warningSizes(&w) {
		*f.value = getSize(attrs, f.key)
	}
	attempts, _ := getInt(attrs, Attempts)
	w.Attempts = int(attempts)
	w.Phase = oom.WarningPhase(w.Kind)
	return w, true
}
