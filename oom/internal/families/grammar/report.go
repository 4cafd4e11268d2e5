// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import "strconv"

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

// Causes of a runtime allocation failure, known when both the request and the
// free memory are printed.
const (
	CauseFragmentation = "fragmentation" // enough free memory in total, no contiguous block
	CauseExhaustion    = "exhaustion"    // not enough free memory at all
)

// PoolCause is the cause the allocator's own figures settle: the request
// free in total but in no chunk (fragmentation), or not free (exhaustion);
// "" when a figure is unknown.
func PoolCause(request, free, largestFree Size) string {
	switch {
	case !request.Known || !free.Known || !largestFree.Known:
		return ""
	case free.Bytes >= request.Bytes && largestFree.Bytes < request.Bytes:
		return CauseFragmentation
	}
	return CauseExhaustion
}

// Size is a byte count read from a message. Known is false when the message did
// not print it or it cannot be represented in an int64.
type Size struct {
	Bytes int64
	Known bool
}

// KnownSize returns a Size that is present.
func KnownSize(n int64) Size { return Size{Bytes: n, Known: true} }

// SparseCoreWords are the figures of a SparseCore memref.alloca failure, in
// words. Zero means not printed.
type SparseCoreWords struct {
	Offset    int64 // current allocation offset upper bound
	Limit     int64 // legitimate user allocatable offset upper bound
	Requested int64 // the allocation that did not fit
}

// Report is everything read from one XLA OOM failure.
type Report struct {
	// Catalog classification: always set on a recognised failure.
	Code     string // E0100, E0101, E1000, E1001, E3000 or E0007
	Name     string // catalog name, e.g. RuntimeBufferAllocationFailure
	Category string // e.g. "Runtime: Buffer Allocation Failure"
	Phase    string // PhaseCompile or PhaseRuntime
	DocURL   string // https://openxla.org/xla/errors/error_XXXX for catalog codes

	// Family is the id of the family that matched, or FamilyCodeOnly; for
	// tests and debugging, not an attribute.
	Family string

	Backend     string // BackendTPU/GPU/CPU when the text shows it
	MemorySpace string // hbm, vmem, smem, ... when the text names it

	// Sizes, exact bytes (the exact companion of a rounded figure when both
	// are printed); unknown when not printed or not representable.
	Requested  Size // the failing allocation, reservation, "Requires X", "required for HLO temporaries (X)", scoped "size X"
	Free       Size // "There are X free", CUDA's "Free memory"
	Used       Size // compile-time "Used X of Y"; TensorCore + SparseCore Hbm usage
	Capacity   Size // "of Y", "has Y available", "exceeds available HBM (Y)", "exceeding available bytes", "would exceed memory (size=Y)", scoped "limit Y", CUDA's "Total memory", "HBM capacity"
	Exceeded   Size // "Exceeded ... capacity by Z", "exceeded scoped ... limit by Z"
	Reserved   Size // program load: "N reserved"
	Reservable Size // program load: "N reservable"
	// PoolLimit is the most a GPU allocator may take from the device (BFC
	// "pool limit X", "Stats: Limit: X"): the share of the GPU that
	// XLA_PYTHON_CLIENT_MEM_FRACTION grants, not the GPU itself.
	PoolLimit Size
	// The allocator's own figures, where a failure's records print them
	// (BFC "Stats:" InUse and LargestFreeBlock, the summary's pool size).
	InUse       Size
	LargestFree Size
	PoolSize    Size

	Program string // "Error loading program 'x'", "[executable_name='x']"
	// MemoryHolder is the executable whose in-use chunks hold the most bytes
	// in the BFC allocator's dump, MemoryHolderSize those bytes: often not
	// the program that failed.
	MemoryHolder     string
	MemoryHolderSize Size
	Replica          int64 // "Execution of replica R failed", "while running replica R and partition P"
	Partition        int64
	HasReplica       bool // Replica was printed
	HasPartition     bool // Partition was printed

	Device string // TPU memory id (0x0x1_HBM0), GPU ordinal ("0"), or PyTorch/XLA device (TPU:6)

	Instruction string          // the HLO instruction or kernel the message names (%my-custom-kernel)
	Words       SparseCoreWords // SparseCore (E3000) figures, in words of an unprinted size: no bytes

	Breakdown Breakdown // the memory breakdown printed with the failure, if any

	// Attempts counts the requests the driver refused on the way in the
	// failure's record; the refusal of the failing request itself is not
	// counted (OwnRefused). RefusedBefore, which the advice reads, starts
	// as Attempts.
	Attempts      int
	RefusedBefore int
	OwnRefused    bool

	Site          Site   // the frame of the user's own code that asked, from the raised status's traceback
	ExceptionType string // the type of the exception the record raised (exception.type)

	Cause       string   // CauseFragmentation or CauseExhaustion when both sizes are known
	Remediation []string // ordered, concrete actions; never empty on a recognised failure

	Retry  string // whether rerunning it unchanged can succeed: RetryFutile, RetryMayHelp or RetryUnknown
	Action string // the kind of the first remediation step, one of Actions
	// FitFraction is capacity / demand when the demand is the larger: the
	// factor by which the per-device demand must shrink (0 when unknown).
	FitFraction float64
}

// Site is a code location: the innermost traceback frame outside the
// installed libraries and the standard library.
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
