// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

// Early warnings: memory is short while the program goes on. A fatal form
// of the same line stays an OOM: Recognize is asked first.

// Warning kinds: the values of the xla.memory.warning attribute (oom/api.go
// says what each means).
const (
	WarningRematerialization = "rematerialization"
	WarningAllocatorRetry    = "allocator_retry"
	WarningAllocationAttempt = "allocation_attempt"
	WarningAutotuneFallback  = "autotune_fallback"
	WarningMemoryUsage       = "memory_usage"
)

// Warning is one memory-pressure warning read from log text.
type Warning struct {
	Kind        string // one of the Warning* kinds
	Family      string // the family entry (families/families_warnings.go); for tests, not an attribute
	Phase       string // PhaseCompile or PhaseRuntime
	Backend     string // BackendGPU/TPU/CPU when the text shows it
	Device      string // GPU ordinal when printed
	Explanation string // one short sentence: what happened and what it costs

	// Sizes, exact bytes; unknown when not printed.
	Requested Size // the allocation that could not be served
	Used      Size // rematerialization: the peak the compiler reached
	Free      Size // memory_usage: free device memory
	Capacity  Size // the limit: rematerialization's memory limit, StreamExecutor's limit, the device total

	// Attempts counts the refused requests of an allocation_attempt's text,
	// the reported one included; Requested is the first, Last the last of several.
	Attempts int
	Last     Size
}

// Pressure is the warning's memory demand (the peak, else the request,
// else total - free) over its limit; above 1 the demand did not fit. ok is
// false when the text prints no limit.
func (w *Warning) Pressure() (ratio float64, ok bool) {
	if !w.Capacity.Known || w.Capacity.Bytes <= 0 {
		return 0, false
	}
	c := float64(w.Capacity.Bytes)
	switch {
	case w.Used.Known && w.Used.Bytes >= 0:
		return float64(w.Used.Bytes) / c, true
	case w.Requested.Known && w.Requested.Bytes >= 0:
		return float64(w.Requested.Bytes) / c, true
	case w.Free.Known && w.Free.Bytes >= 0 && w.Free.Bytes <= w.Capacity.Bytes:
		return float64(w.Capacity.Bytes-w.Free.Bytes) / c, true
	}
	return 0, false
}

// Explanations are the short texts of the kinds, written to the
// xla.memory.warning.explanation attribute.
var Explanations = map[string]string{
	WarningRematerialization: "XLA recomputed values to reduce peak memory but could not get under its memory limit; the program may fail to allocate or run slower.",
	WarningAllocatorRetry:    "The GPU allocator could not serve an allocation its caller can do without; the caller fell back to a slower path because memory is short.",
	WarningAllocationAttempt: "The GPU driver refused an allocator's request for memory; XLA's pool set-up and growth retry with less, so this is not a failure. At start-up it means another process or library holds part of this GPU.",
	WarningAutotuneFallback:  "The GPU autotuner had no memory for its scratch buffers and fell back to a default algorithm; performance may be lower.",
	WarningMemoryUsage:       "cuDNN failed to start and printed the device's free memory; little free memory is the usual cause.",
}

// Explanation returns the short text of a warning kind ("" if unknown).
func Explanation(kind string) string { return Explanations[kind] }

// WarningKinds lists every kind, in documentation order.
func WarningKinds() []string {
	return []string{WarningRematerialization, WarningAllocatorRetry, WarningAllocationAttempt,
		WarningAutotuneFallback, WarningMemoryUsage}
}

// WarningPhase is the phase a warning kind is logged in ("" if unknown).
func WarningPhase(kind string) string {
	switch kind {
	case WarningRematerialization, WarningAutotuneFallback:
		return PhaseCompile
	case WarningAllocatorRetry, WarningAllocationAttempt, WarningMemoryUsage:
		return PhaseRuntime
	}
	return ""
}
