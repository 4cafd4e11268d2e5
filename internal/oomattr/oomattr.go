// Package oomattr is the attribute contract between an oom.Report and a log
// record: the processor writes it, the connector reads it back, so a record
// tagged upstream is never parsed twice.
package oomattr

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Attribute keys. They are a stable contract: dashboards, alerts and the
// connector depend on them.
const (
	ErrorCode     = "xla.error.code"
	ErrorName     = "xla.error.name"
	ErrorCategory = "xla.error.category"
	ErrorPhase    = "xla.error.phase"
	ErrorDocURL   = "xla.error.doc_url"
	ErrorType     = "error.type"
	Backend       = "xla.backend"
	MemorySpace   = "xla.memory.space"
	Requested     = "xla.oom.requested.size"
	Free          = "xla.oom.free.size"
	Used          = "xla.oom.used.size"
	Capacity      = "xla.oom.capacity.size"
	Exceeded      = "xla.oom.exceeded.size"
	Reserved      = "xla.oom.reserved.size"
	Reservable    = "xla.oom.reservable.size"
	Program       = "xla.program.name"
	Replica       = "xla.replica"
	Partition     = "xla.partition"
	Device        = "xla.device"
	Cause         = "xla.oom.cause"
	Remediation   = "xla.remediation"
)

// sizeFields pairs each size attribute with its Report field, so that Put and
// Get cannot drift apart.
func sizeFields(r *oom.Report) []struct {
	key  string
	size *oom.Size
} {
	return []struct {
		key  string
		size *oom.Size
	}{
		{Requested, &r.Requested}, {Free, &r.Free}, {Used, &r.Used}, {Capacity, &r.Capacity},
		{Exceeded, &r.Exceeded}, {Reserved, &r.Reserved}, {Reservable, &r.Reservable},
	}
}

func stringFields(r *oom.Report) []struct {
	key   string
	value *string
} {
	return []struct {
		key   string
		value *string
	}{
		{ErrorCode, &r.Code}, {ErrorName, &r.Name}, {ErrorCategory, &r.Category}, {ErrorPhase, &r.Phase},
		{ErrorDocURL, &r.DocURL}, {Backend, &r.Backend}, {MemorySpace, &r.MemorySpace},
		{Program, &r.Program}, {Device, &r.Device}, {Cause, &r.Cause},
	}
}

// Put writes r onto attrs. Empty strings and unknown sizes are left out.
// error.type carries the XLA code, the low-cardinality class semantic
// conventions ask for.
func Put(r oom.Report, attrs pcommon.Map) {
	attrs.EnsureCapacity(attrs.Len() + 16)
	for _, f := range stringFields(&r) {
		if *f.value != "" {
			attrs.PutStr(f.key, *f.value)
		}
	}
	attrs.PutStr(ErrorType, r.Code)
	for _, f := range sizeFields(&r) {
		if f.size.Known {
			attrs.PutInt(f.key, f.size.Bytes)
		}
	}
	if r.HasReplica {
		attrs.PutInt(Replica, r.Replica)
	}
	if r.HasPartition {
		attrs.PutInt(Partition, r.Partition)
	}
	if len(r.Remediation) > 0 {
		s := attrs.PutEmptySlice(Remediation)
		s.EnsureCapacity(len(r.Remediation))
		for _, step := range r.Remediation {
			s.AppendEmpty().SetStr(step)
		}
	}
}

// Tagged reports whether attrs already carry an XLA OOM tag.
func Tagged(attrs pcommon.Map) bool {
	_, ok := attrs.Get(ErrorCode)
	return ok
}

// Get reads back a Report written by Put. It returns false when attrs carry no
// xla.error.code. Values of the wrong type are ignored rather than trusted.
func Get(attrs pcommon.Map) (oom.Report, bool) {
	var r oom.Report
	code, ok := attrs.Get(ErrorCode)
	if !ok || code.Type() != pcommon.ValueTypeStr || code.Str() == "" {
		return r, false
	}
	for _, f := range stringFields(&r) {
		if v, ok := attrs.Get(f.key); ok && v.Type() == pcommon.ValueTypeStr {
			*f.value = v.Str()
		}
	}
	for _, f := range sizeFields(&r) {
		if v, ok := attrs.Get(f.key); ok && v.Type() == pcommon.ValueTypeInt {
			*f.size = oom.KnownSize(v.Int())
		}
	}
	if v, ok := attrs.Get(Replica); ok && v.Type() == pcommon.ValueTypeInt {
		r.Replica, r.HasReplica = v.Int(), true
	}
	if v, ok := attrs.Get(Partition); ok && v.Type() == pcommon.ValueTypeInt {
		r.Partition, r.HasPartition = v.Int(), true
	}
	if v, ok := attrs.Get(Remediation); ok && v.Type() == pcommon.ValueTypeSlice {
		s := v.Slice()
		r.Remediation = make([]string, 0, s.Len())
		for i := 0; i < s.Len(); i++ {
			r.Remediation = append(r.Remediation, s.At(i).AsString())
		}
	}
	return r, true
}
