// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"slices"
	"strconv"
	"strings"
)

// Phase tells whether the failure happened while compiling or while running.
const (
	PhaseCompile = "compile"
	PhaseRuntime = "runtime"
)

// Backends, set only when the message itself shows which one failed.
const (
	BackendTPU = "tpu"
	BackendGPU = "gpu"
	BackendCPU = "cpu"
)

// Causes of a runtime allocation failure, known when both the request and the free memory are printed.
const (
	CauseFragmentation = "fragmentation" // enough free memory in total, no contiguous block
	CauseExhaustion    = "exhaustion"    // not enough free memory at all
)

// PoolCause is the cause the allocator's figures settle: free in total but in no chunk is fragmentation.
func PoolCause(request, free, largestFree Size) string {
	switch {
	case !request.Known || !free.Known || !largestFree.Known:
		return ""
	case free.Bytes >= request.Bytes && largestFree.Bytes < request.Bytes:
		return CauseFragmentation
	}
	return CauseExhaustion
}

// Size is a byte count read from a message; Known is false when not printed or beyond int64.
type Size struct {
	Bytes int64
	Known bool
}

// KnownSize returns a Size that is present.
func KnownSize(n int64) Size { return Size{Bytes: n, Known: true} }

// SparseCoreWords are the figures of a SparseCore memref.alloca failure, in words (zero: not printed).
type SparseCoreWords struct {
	Offset    int64 // current allocation offset upper bound
	Limit     int64 // legitimate user allocatable offset upper bound
	Requested int64 // the allocation that did not fit
}

// Report is everything read from one XLA OOM failure.
type Report struct {
	Code     string // E0100, E0101, E1000, E1001, E3000 or E0007
	Name     string // catalog name, e.g. RuntimeBufferAllocationFailure
	Category string // e.g. "Runtime: Buffer Allocation Failure"
	Phase    string // PhaseCompile or PhaseRuntime
	DocURL   string // https://openxla.org/xla/errors/error_XXXX for catalog codes

	Family string // the id of the family that matched, or FamilyCodeOnly; not an attribute

	Backend     string // BackendTPU/GPU/CPU when the text shows it
	MemorySpace string // hbm, vmem, smem, ... when the text names it

	// Sizes in exact bytes (the exact companion of a rounded figure when both are printed).
	Requested  Size // the failing allocation, reservation, "Requires X", "required for HLO temporaries (X)", scoped "size X"
	Free       Size // "There are X free", CUDA's "Free memory"
	Used       Size // compile-time "Used X of Y"; TensorCore + SparseCore Hbm usage
	Capacity   Size // "of Y", "has Y available", "exceeds available HBM (Y)", "exceeding available bytes", "would exceed memory (size=Y)", scoped "limit Y", CUDA's "Total memory", "HBM capacity"
	Exceeded   Size // "Exceeded ... capacity by Z", "exceeded scoped ... limit by Z"
	Reserved   Size // program load: "N reserved"
	Reservable Size // program load: "N reservable"
	PoolLimit  Size // the most a GPU allocator may take (BFC "pool limit X"): XLA's share, not the GPU
	// The allocator's own figures (BFC "Stats:" InUse and LargestFreeBlock, the summary's pool size).
	InUse       Size
	LargestFree Size
	PoolSize    Size

	Program          string // "Error loading program 'x'", "[executable_name='x']"
	MemoryHolder     string // the executable whose in-use BFC chunks hold the most bytes: often not the one that failed
	MemoryHolderSize Size
	Replica          int64 // "Execution of replica R failed", "while running replica R and partition P"
	Partition        int64
	HasReplica       bool // Replica was printed
	HasPartition     bool // Partition was printed

	Device string // TPU memory id (0x0x1_HBM0), GPU ordinal ("0"), or PyTorch/XLA device (TPU:6)

	Instruction string          // the HLO instruction or kernel the message names (%my-custom-kernel)
	Words       SparseCoreWords // SparseCore (E3000) figures, in words of an unprinted size: no bytes

	Breakdown Breakdown // the memory breakdown printed with the failure, if any

	// Attempts counts the driver's refusals on the way, not the failing request's own (OwnRefused).
	Attempts       int
	AttemptsInText int
	OwnRefused     bool

	Site          Site   // the frame of the user's own code that asked, from the raised status's traceback
	ExceptionType string // the type of the exception the record raised (exception.type)

	// Framework is FrameworkTensorFlow, FrameworkJAX, FrameworkPyTorchXLA, or "" when the text does not show it:
	// the framework Remediation names the knobs of. Change it with oom.Reframe, which renders them again.
	Framework   string
	Cause       string   // CauseFragmentation or CauseExhaustion when both sizes are known
	Remediation []string // ordered, concrete actions; never empty on a recognised failure
	// AdviceSource is Remediation's last steps with their knobs as references (KnobRef), so the advice can be
	// rendered again for another framework without the record's text; not an attribute.
	AdviceSource []string

	Retry       string  // whether rerunning it unchanged can succeed: RetryFutile, RetryMayHelp or RetryUnknown
	Action      string  // the kind of the first remediation step, one of Actions
	FitFraction float64 // capacity / demand when demand is larger: how much the per-device demand must shrink
}

// Site is a code location: the innermost traceback frame outside installed libraries and the standard library.
type Site struct {
	File     string
	Line     int64
	Function string
}

// String is "file:line in function" ("" when no file is known).
func (s Site) String() string {
	if s.File == "" {
		return ""
	}
	t := s.File + ":" + strconv.FormatInt(s.Line, 10)
	if s.Function != "" {
		t += " in " + s.Function
	}
	return t
}

type entry struct {
	Code, Name, Category string
	Phase                string // "" when the code does not fix the phase (E0007)
	DocURL               string // "" when the code has no page
}

const docBase = "https://openxla.org/xla/errors/error_"

// Catalog holds the out-of-memory codes of xla/error/error_codes.h; E0007 (ResourceExhausted) has no page.
var Catalog = []entry{
	{"E0007", "ResourceExhausted", "Resource Exhausted: Out of Memory", "", ""},
	{"E0100", "RuntimeBufferAllocationFailure", "Runtime: Buffer Allocation Failure", PhaseRuntime, docBase + "0100"},
	{"E0101", "RuntimeProgramAllocationFailure", "Runtime: Program Allocation Failure", PhaseRuntime, docBase + "0101"},
	{"E1000", "CompileTimeHbmOom", "Compile Time: HBM OOM", PhaseCompile, docBase + "1000"},
	{"E1001", "CompileTimeScopedVmemOom", "Compile Time: Scoped Vmem OOM", PhaseCompile, docBase + "1001"},
	{"E3000", "CompileTimeSparseCoreAllocationFailure", "Compile Time: SparseCore Allocation Failure", PhaseCompile, docBase + "3000"},
}

// Codes, named for the grammar.
const (
	CodeGeneric    = "E0007"
	CodeBuffer     = "E0100"
	CodeProgram    = "E0101"
	CodeHbm        = "E1000"
	CodeVmem       = "E1001"
	CodeSparseCore = "E3000"
)

// LookupCode returns the catalog entry for code; E1002, the draft TensorCore+SparseCore HBM code, is E1000.
func LookupCode(code string) (entry, bool) {
	if code == "E1002" {
		code = CodeHbm
	}
	for _, e := range Catalog {
		if e.Code == code {
			return e, true
		}
	}
	return entry{}, false
}

// LookupName returns the catalog entry for a code name such as CompileTimeHbmOom.
func LookupName(name string) (entry, bool) {
	for _, e := range Catalog {
		if e.Name == name {
			return e, true
		}
	}
	return entry{}, false
}

// Action kinds (Report.Action, attribute xla.oom.action; oom/api.go).
const (
	ActionShrinkFootprint  = "shrink_footprint"   // a smaller batch, sequence or tensors: less per device
	ActionShard            = "shard"              // shard over more devices, or check that an array is sharded
	ActionRematerialize    = "rematerialize"      // trade compute for memory: remat, the compiler's rematerialization
	ActionReleaseBuffers   = "release_buffers"    // free, donate or re-create the program's own buffers and programs
	ActionChangeAllocator  = "change_allocator"   // another allocator (cuda_async, platform) against fragmentation
	ActionSetMemoryLimit   = "set_memory_limit"   // change a memory limit or share: MEM_FRACTION, VMEM limit, host pool
	ActionFreeHeldMemory   = "free_held_memory"   // memory held outside the program (another process or library)
	ActionRetileKernel     = "retile_kernel"      // smaller tiles or scratch of a custom kernel (Pallas, Mosaic)
	ActionTuneCompiler     = "tune_compiler"      // a compiler or runtime flag (autotuning, offload, command buffers)
	ActionReduceHostMemory = "reduce_host_memory" // less in host RAM or pinned host memory
	ActionInvestigate      = "investigate"        // no fix is known from the record: profile, dump, report
)

// Actions lists every action kind with what it means, in the docs' order.
var Actions = []struct{ Name, Meaning string }{
	{ActionShrinkFootprint, "reduce what the program keeps per device: a smaller batch or sequence length, smaller or 16-bit tensors"},
	{ActionShard, "shard the program or the array over more devices, or check that it is sharded as intended"},
	{ActionRematerialize, "trade compute for memory: jax.checkpoint (remat), the compiler's rematerialization, host offload"},
	{ActionReleaseBuffers, "free, donate or re-create the program's own buffers; keep fewer programs loaded"},
	{ActionChangeAllocator, "use another allocator (cuda_async, platform) against fragmentation"},
	{ActionSetMemoryLimit, "change a memory limit or share: XLA_PYTHON_CLIENT_MEM_FRACTION, a kernel's VMEM limit, the pinned host pool"},
	{ActionFreeHeldMemory, "free memory that another process or library holds on the device, or give each its own share"},
	{ActionRetileKernel, "use smaller tiles, blocks or scratch in a custom kernel (Pallas, Mosaic, SparseCore)"},
	{ActionTuneCompiler, "set a compiler or runtime flag: autotuning, SparseCore offload, command buffers, program temporaries"},
	{ActionReduceHostMemory, "keep, transfer or offload less in host RAM or pinned host memory"},
	{ActionInvestigate, "no fix is read from the record: profile, dump the allocations, or report the message"},
}

// ConstAction is an own advice's kind that reads nothing from the report.
func ConstAction(a string) func(*Report) string { return func(*Report) string { return a } }

// Advice is a list of steps, built by the advice functions.
type Advice []string

// Add appends one step, the concatenation of parts.
func (a *Advice) Add(parts ...string) { *a = append(*a, strings.Join(parts, "")) }

// HumanSize formats a size for advice text ("1.50GiB").
func HumanSize(s Size) string { return HumanBytes(s.Bytes) }

// Ratio returns need/have, or 0 when either is unknown or have is not positive.
func Ratio(need, have Size) float64 {
	if !need.Known || !have.Known || have.Bytes <= 0 {
		return 0
	}
	return float64(need.Bytes) / float64(have.Bytes)
}

// Warning kinds: the values of the xla.memory.warning attribute. A fatal form of the same line is an OOM.
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

	Requested Size // the allocation that could not be served
	Used      Size // rematerialization: the peak the compiler reached
	Free      Size // memory_usage: free device memory
	Capacity  Size // the limit: rematerialization's memory limit, StreamExecutor's limit, the device total

	// Attempts counts the refused requests, the reported one included; Requested is the first, Last the last.
	Attempts int
	Last     Size
}

// Pressure is the warning's demand (the peak, else the request, else total - free) over its limit; ok is
// false when no limit is printed.
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

// Explanations are the short texts of the kinds (attribute xla.memory.warning.explanation).
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

// MaxAllocations bounds the breakdown entries read from one record.
const MaxAllocations = 100

// Allocation is one entry of "Largest program allocations in hbm" (TPU) or "Peak buffers" (GPU).
type Allocation struct {
	Size       Size
	OpType     string // op_type="…", when printed
	OpName     string // op_name="…", escapes decoded
	SourceFile string
	SourceLine int64  // 0 when not printed
	Shape      string // "Shape:" or GPU "Entry Parameter Subshape:"
	Unpadded   Size
	Padding    Size    // "Extra memory due to padding: X"
	Expansion  float64 // "(N.Nx expansion)"; 0 when not printed
	Label      string  // "XLA label:" (bounded, may end in "...")
	Type       string  // "Allocation type:", e.g. "HLO temp"; "entry parameter" for a GPU entry parameter
}

// IsInput reports whether the allocation holds a program input, not a line of code to fix: its type says so,
// or its operator is a jax.export/torchax input path (params_and_buffers['…']) with no source line.
func (a *Allocation) IsInput() bool {
	t := strings.ToLower(a.Type)
	if strings.Contains(t, "parameter") || strings.Contains(t, "argument") {
		return true
	}
	return a.SourceFile == "" && slices.ContainsFunc(inputPaths[:], func(p string) bool { return strings.HasPrefix(a.OpName, p) })
}

var inputPaths = [...]string{"params_and_buffers[", "params[", "args[", "kwargs["}

// Source returns "file:line" (or the file alone), or "".
func (a *Allocation) Source() string {
	if a.SourceFile == "" {
		return ""
	}
	if a.SourceLine > 0 {
		return a.SourceFile + ":" + strconv.FormatInt(a.SourceLine, 10)
	}
	return a.SourceFile
}

// Breakdown holds the totals of a memory breakdown; sizes not printed (or "unknown size") are unknown.
type Breakdown struct {
	Total             Size // "Total hbm usage >= X", GPU "total allocation"
	Reserved          Size // "reserved X" of the total, XRT "Top-of-Memory reserved"
	Program           Size // "program X", "Program hbm requirement X", XRT "Program requirement"
	Arguments         Size // "arguments X", GPU "parameter allocation"
	Output            Size // "Output size X", GPU "maybe_live_out allocation"
	OutputShared      Size // "shares X with arguments"
	Temp              Size // "HLO temp X", GPU "preallocated temp allocation"
	TempFragmentation Size // HLO temp "…% fragmentation (X)", GPU "preallocated temp fragmentation"
	Fragmentation     Size // GPU "total fragmentation"
	Padding           Size // HLO temp Padded − Unpadded
	Allocated         Size // XRT "Currently allocated"
	AvailableAfter    Size // XRT "Available after request" (negative when short)

	Allocations []Allocation // in printed order
}

// Culprit returns the index of the largest allocation that names an operator and is no input, or -1.
func (b *Breakdown) Culprit() int {
	return b.largest(func(a *Allocation) bool { return a.OpName != "" && !a.IsInput() })
}

// LargestInput returns the index of the largest program-input allocation, or -1.
func (b *Breakdown) LargestInput() int { return b.largest((*Allocation).IsInput) }

// largest returns the index of the first largest allocation of known size that keep accepts, or -1.
func (b *Breakdown) largest(keep func(*Allocation) bool) int {
	best := -1
	for i := range b.Allocations {
		a := &b.Allocations[i]
		if a.Size.Known && keep(a) && (best < 0 || a.Size.Bytes > b.Allocations[best].Size.Bytes) {
			best = i
		}
	}
	return best
}
