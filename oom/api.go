// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package oom recognises XLA out-of-memory failures in log text, reads every size in them to bytes,
// classifies them against the OpenXLA error catalog and advises what to do. It has no Collector types.
// Call MayContain on every record (about one strings.Contains, no allocation) and Recognize on those it passes.
// This package is the face over the layers under internal/ (ARCHITECTURE.md; TestLayers checks their order).
package oom

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/diagnosis"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/startup"
)

// Action kinds (Report.Action, attribute xla.oom.action): the kind of the advice's first step.
const (
	ActionShrinkFootprint  = grammar.ActionShrinkFootprint  // a smaller batch, sequence or tensors: less per device
	ActionShard            = grammar.ActionShard            // shard over more devices, or check that an array is sharded
	ActionRematerialize    = grammar.ActionRematerialize    // trade compute for memory: remat, the compiler's rematerialization
	ActionReleaseBuffers   = grammar.ActionReleaseBuffers   // free, donate or re-create the program's own buffers and programs
	ActionChangeAllocator  = grammar.ActionChangeAllocator  // another allocator (cuda_async, platform) against fragmentation
	ActionSetMemoryLimit   = grammar.ActionSetMemoryLimit   // change a memory limit or share: MEM_FRACTION, VMEM limit, host pool
	ActionFreeHeldMemory   = grammar.ActionFreeHeldMemory   // memory held outside the program (another process or library)
	ActionRetileKernel     = grammar.ActionRetileKernel     // smaller tiles or scratch of a custom kernel (Pallas, Mosaic)
	ActionTuneCompiler     = grammar.ActionTuneCompiler     // a compiler or runtime flag (autotuning, offload, command buffers)
	ActionReduceHostMemory = grammar.ActionReduceHostMemory // less in host RAM or pinned host memory
	ActionInvestigate      = grammar.ActionInvestigate      // no fix is known from the record: profile, dump, report
)

// Actions lists every action kind with what it means, in the docs' order.
var Actions = grammar.Actions

// MaxAllocations bounds the breakdown entries read from one record.
const MaxAllocations = grammar.MaxAllocations

// Allocation is one entry of "Largest program allocations in hbm" (TPU) or "Peak buffers" (GPU).
type Allocation = grammar.Allocation

// Breakdown holds the totals of a memory breakdown; a size not printed is unknown.
type Breakdown = grammar.Breakdown

// FamilyGeneric is Report.Family of a memory failure no family knows (code E0007).
const FamilyGeneric = generic.FamilyGeneric

// Phase tells whether the failure happened while compiling or while running.
const (
	PhaseCompile = grammar.PhaseCompile
	PhaseRuntime = grammar.PhaseRuntime
)

// Backends, set only when the message itself shows which one failed.
const (
	BackendTPU = grammar.BackendTPU
	BackendGPU = grammar.BackendGPU
	BackendCPU = grammar.BackendCPU
)

// Causes of a runtime allocation failure, known when both the request and the free memory are printed.
const (
	CauseFragmentation = grammar.CauseFragmentation // enough free memory in total, no contiguous block
	CauseExhaustion    = grammar.CauseExhaustion    // not enough free memory at all
)

// Size is a byte count read from a message; Known is false when not printed or beyond int64.
type Size = grammar.Size

// KnownSize returns a Size that is present.
func KnownSize(n int64) Size { return grammar.KnownSize(n) }

// SparseCoreWords are the figures of a SparseCore memref.alloca failure, in words (zero: not printed).
type SparseCoreWords = grammar.SparseCoreWords

// Report is everything read from one XLA OOM failure.
type Report = grammar.Report

// Retry verdicts (Report.Retry, attribute xla.oom.retry): whether the same run again can succeed.
const (
	RetryFutile  = diagnosis.RetryFutile  // the program or its configuration must change
	RetryMayHelp = diagnosis.RetryMayHelp // it depended on something outside the program (another process, a fragmented pool)
	RetryUnknown = diagnosis.RetryUnknown // the record does not show which
)

// Facts are what the whole job says of a failure beyond its own records: the driver's refusals before
// it, the device and pool at start-up, the compiler's plan and the job's earlier attempts.
type Facts = diagnosis.Facts

// Decision is a verdict, its rule and, for unknown, the rule that would have decided and the fact it lacked.
type Decision = diagnosis.Decision

// The facts a retry rule can lack (Decision.Missing, attribute xla.oom.retry.missing).
const (
	MissingPoolBasis   = diagnosis.MissingPoolBasis
	MissingRequested   = diagnosis.MissingRequested
	MissingJobIdentity = diagnosis.MissingJobIdentity
	MissingEarlier     = diagnosis.MissingEarlier
)

// RuleRepeat names the repeat rule, whose fact (Facts.Earlier) a caller's history of the job supplies.
const RuleRepeat = diagnosis.RuleRepeat

// Judge is the decision on r given f, r unchanged.
func Judge(r *Report, f Facts) Decision { return diagnosis.Judge(r, f) }

// WithRepeat is d once the job's history shows the failure repeats an earlier attempt.
func WithRepeat(d Decision) Decision { return diagnosis.WithRepeat(d) }

// RecordVerdict is the verdict a record alone supports, whatever its job says: futile only where no fact
// of the job could make it may_help.
func RecordVerdict(r *Report) string { return diagnosis.RecordVerdict(r) }

// Decide sets the verdict of a whole failure (and, where memory held elsewhere decides, its action and
// first step) and returns the decision.
func Decide(r *Report, f Facts) Decision { return diagnosis.Decide(r, f) }

// Process is what one process printed at start-up about its devices and pools, and the compiler's plan.
type Process = startup.Process

// Device is what a process knows of one device at start-up.
type Device = startup.Device

// StartupCues are the substrings one of which every line Process.Read takes contains.
var StartupCues = startup.Cues

// StartupPlan reports whether text holds one of the compiler's plan lines, which a warning may be too.
func StartupPlan(text string) bool { return startup.Plan(text) }

// StartupMayContain reports whether text may hold a line Process.Read takes.
func StartupMayContain(text string) bool { return startup.MayContain(text) }

// ModelMemory is the memory of an accelerator model by the name its driver prints (docs/devices.md).
func ModelMemory(name string) (Size, bool) { return startup.ModelMemory(name) }

// PoolCause is the cause the allocator's free and largest free chunk settle against the request ("" if unknown).
func PoolCause(request, free, largestFree Size) string {
	return grammar.PoolCause(request, free, largestFree)
}

// Allocator is what an allocator printed about its pool (BFC Stats, memory summary, in-use chunks): the one
// reader of those figures, for one record and a whole failure alike.
type Allocator = details.Allocator

// Holder is an executable and the bytes its in-use chunks hold.
type Holder = details.Holder

// MaxHolders bounds the executables an Allocator tallies.
const MaxHolders = details.MaxHolders

// Site is a code location (Report.Site).
type Site = grammar.Site

// ParseSize reads one size token as XLA prints it ("6.00MiB", "147.64M", "1073741824"), base 1024.
func ParseSize(tok string) Size { return grammar.ParseSizeToken(tok) }

// HumanBytes formats n in binary units, e.g. "49.34 GiB".
func HumanBytes(n int64) string { return grammar.HumanBytes(n) }

// Warning kinds: the values of the xla.memory.warning attribute.
const (
	WarningRematerialization = grammar.WarningRematerialization // the compiler's rematerialization missed its limit
	WarningAllocatorRetry    = grammar.WarningAllocatorRetry    // BFC could not serve an allocation its caller can do without
	WarningAllocationAttempt = grammar.WarningAllocationAttempt // the driver refused an allocator's request; it retries with less
	WarningAutotuneFallback  = grammar.WarningAutotuneFallback  // the GPU autotuner had no scratch memory and fell back
	WarningMemoryUsage       = grammar.WarningMemoryUsage       // cuDNN failed to start and printed the device's free memory
)

// Warning is one memory-pressure warning read from log text.
type Warning = grammar.Warning

// Explanation returns the short text of a warning kind ("" if unknown).
func Explanation(kind string) string { return grammar.Explanation(kind) }

// WarningKinds lists every kind, in documentation order.
func WarningKinds() []string { return grammar.WarningKinds() }

// WarningPhase is the phase a warning kind is logged in ("" if unknown).
func WarningPhase(kind string) string { return grammar.WarningPhase(kind) }

// BackOff reports whether n refused requests from first to last bytes are a BFC back-off (0.9 per step, 0.85 to 0.95 counts).
func BackOff(first int64, last int64, n int) bool { return diagnosis.BackOff(first, last, n) }

// WarningAdvice returns ordered steps for a warning, nil for a kind that has none; for
// allocation_attempt w is the job's whole series (first and last refused request, count, CUDA's figures).
func WarningAdvice(w *Warning) []string { return diagnosis.WarningAdvice(w) }

// AssembledRetryRules names the retry rules that read facts only a whole failure holds.
func AssembledRetryRules() []string {
	var names []string
	for _, r := range diagnosis.RetryRules {
		if r.Assembled {
			names = append(names, r.Name)
		}
	}
	return names
}

// Frameworks: the program above XLA (Report.Framework); "" when the text does not show it.
const (
	FrameworkTensorFlow = grammar.FrameworkTensorFlow // TensorFlow and Keras on TensorFlow
	FrameworkJAX        = grammar.FrameworkJAX
	FrameworkPyTorchXLA = grammar.FrameworkPyTorchXLA
)

// How strongly a text shows its framework, weakest first (FrameworkEvidence).
const (
	FrameworkByLog       = grammar.FrameworkByLog       // a log line's source path or a message only that framework prints
	FrameworkByFrame     = grammar.FrameworkByFrame     // a traceback frame or module of the framework
	FrameworkByException = grammar.FrameworkByException // the type of the exception the program raised
)

// FrameworkOf returns the framework a record's text shows ("" when none): the raised exception's type over
// traceback frames over log lines. Fixed marks only: cheap on any record the prefilter passed.
func FrameworkOf(text string) string { return grammar.FrameworkOf(text) }

// FrameworkEvidence is FrameworkOf with how strongly the text shows it (0 for none), so that a stream's
// framework can keep its strongest evidence: TensorFlow's start-up lines also print in JAX jobs that import it.
func FrameworkEvidence(text string) (framework string, strength int) {
	return grammar.FrameworkEvidence(text)
}

// Reframe renders r's advice again for framework ("" for unknown) and sets r.Framework, from r.AdviceSource
// and without the record's text; steps prepended to r.Remediation since are kept. Idempotent.
func Reframe(r *Report, framework string) { diagnosis.Reframe(r, framework) }
