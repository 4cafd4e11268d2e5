// Package oom recognises XLA out-of-memory failures in log text, parses every
// size in them to bytes, classifies them against the OpenXLA error catalog and
// advises what to do. It has no OpenTelemetry Collector types, so the processor,
// the connector and any other tool can share it.
package oom

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

	// Family names the grammar entry that matched (see grammar.go), for tests
	// and debugging; it is not part of the attribute contract.
	Family string

	Backend     string // BackendTPU/GPU/CPU when the text shows it
	MemorySpace string // hbm, vmem, smem, ... when the text names it

	Requested  Size // what the failing allocation, reservation or program asked for
	Free       Size // what the message says was free or available
	Used       Size // compile-time "Used X of Y"
	Capacity   Size // compile-time "of Y", or "would exceed memory (size=Y)"
	Exceeded   Size // compile-time "Exceeded ... capacity by Z"
	Reserved   Size // program load: "N reserved"
	Reservable Size // program load: "N reservable"

	Program      string // e.g. jit_train_step
	Replica      int64
	Partition    int64
	HasReplica   bool // Replica was printed
	HasPartition bool // Partition was printed

	Device string // device or memory id, e.g. 0x0x1_HBM0, or a GPU ordinal

	// Instruction is the HLO instruction or kernel the message names, e.g.
	// %my-custom-kernel for a scoped VMEM OOM ("" when none is printed).
	Instruction string
	// Words holds the SparseCore (E3000) figures, printed in words of an
	// unprinted size, so they have no byte equivalent.
	Words SparseCoreWords

	Cause       string   // CauseFragmentation or CauseExhaustion when both sizes are known
	Remediation []string // ordered, concrete actions; never empty on a recognised failure
}
