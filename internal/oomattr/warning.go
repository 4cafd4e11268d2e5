// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomattr

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Attribute keys of a memory-pressure warning; it never carries xla.error.code or error.type, so nothing that
// counts failures counts it.
const (
	// WarningKind: rematerialization, allocator_retry, allocation_attempt, autotune_fallback or memory_usage.
	WarningKind = "xla.memory.warning"
	// WarningExplanation says in one sentence what happened and what it costs.
	WarningExplanation = "xla.memory.warning.explanation"
)

func warningSizes(w *oom.Warning) [5]sizeField {
	return [5]sizeField{{Requested, &w.Requested}, {Used, &w.Used}, {Free, &w.Free}, {Capacity, &w.Capacity}, {AttemptLast, &w.Last}}
}

// warningStrings are a warning's string attributes; its phase follows from the kind and is not written.
func warningStrings(w *oom.Warning) [4]stringField {
	return [4]stringField{{WarningKind, &w.Kind}, {WarningExplanation, &w.Explanation}, {Backend, &w.Backend}, {Device, &w.Device}}
}

// PutWarning writes w onto attrs. Empty strings and unknown sizes are left out.
func PutWarning(w oom.Warning, attrs pcommon.Map) {
	attrs.EnsureCapacity(attrs.Len() + 8)
	for _, f := range warningStrings(&w) {
		putStr(attrs, f.key, *f.value)
	}
	for _, f := range warningSizes(&w) {
		putKnown(attrs, f.key, *f.size)
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

// GetWarning reads back a warning written by PutWarning; false without xla.memory.warning or with
// xla.error.code (a failure is never a warning).
func GetWarning(attrs pcommon.Map) (oom.Warning, bool) {
	kind, ok := attrs.Get(WarningKind)
	if !ok || kind.Type() != pcommon.ValueTypeStr || kind.Str() == "" || Tagged(attrs) {
		return oom.Warning{}, false
	}
	var w oom.Warning
	for _, f := range warningStrings(&w) {
		*f.value = getStr(attrs, f.key)
	}
	for _, f := range warningSizes(&w) {
		*f.size = getSize(attrs, f.key)
	}
	if n, ok := getInt(attrs, Attempts); ok {
		w.Attempts = int(n)
	}
	w.Phase = oom.WarningPhase(w.Kind)
	return w, true
}
