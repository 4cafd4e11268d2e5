package oom

import "strings"

// The grammar of XLA OOM messages, in one place: one entry per message family
// of the quick index in shared/reference/xla-oom-formats.md (§0), letters A–O
// (and R, a GPU autotuner form seen in the real captures of testdata/real);
// then the details that can surround any of them (P: replica/partition
// context, program, device, allocator figures); then the error-code tokens
// (Q) and the contexts that make a match a false alarm.
//
// Every pattern runs on flattened text (see flatten): log headers stripped and
// every whitespace run turned into one space, so a literal space in a pattern
// also matches a line break or a re-logged line's prefix. Patterns are RE2
// (linear time). A pattern runs only where its literal anchor occurs, on a
// bounded window around it, so a huge record costs time linear in its size.
//
// Adding a message format = one entry here + one fixture in the tests.

// sz captures one size in any spelling (see sizePattern and parseSize).
const sz = `(` + sizePattern + `)`

// family is one message format.
type family struct {
	id string // quick-index letter, plus a digit when a letter has several forms
	pattern
	// fatal marks a returned status (what the program fails with). A log-only
	// line (allocator or driver warning) is reported only when no status is
	// present, and otherwise lends its details to it.
	fatal   bool
	phase   string
	code    string // default code; a code printed in the text wins
	backend string // the backend the message itself proves, "" if it does not
	// read fills r from the match; false rejects the match (a non-fatal form).
	read func(r *Report, m match) bool
	// req lists the groups that may hold Requested as printed, exact figure
	// first: a rounded one can then take the exact figure another message of
	// the record prints for the same allocation.
	req []int
}

var families = []family{
	{ // A: TPU compile: "Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G."
		id: "A", fatal: true, phase: PhaseCompile, code: codeHbm, backend: BackendTPU,
		pattern: pat("y in memory space", len("Ran out of memor"),
			`[Rr]an out of memory in memory space (\w+)\.? Used `+sz+` of `+sz+`(?: \w+)?\.?(?: Exceeded \w+ capacity by `+sz+`)?`),
		read: func(r *Report, m match) bool {
			r.MemorySpace = strings.ToLower(m.g(1))
			r.Used, r.Capacity, r.Exceeded = size(m.g(2)), size(m.g(3)), size(m.g(4))
			if r.MemorySpace != "hbm" {
				r.Code = codeVmem // vmem, smem: the compiler's on-chip memories
			}
			return true
		},
	},
	{ // B: TPU compile: "Aborting compilation early because it's unlikely to have enough memory. Requires 3.84T, has 90.96G available."
		id: "B", req: []int{1}, fatal: true, phase: PhaseCompile, code: codeHbm, backend: BackendTPU,
		pattern: pat("Aborting compilation early", 0,
			`Aborting compilation early because it.?s unlikely to have enough memory\.? Requires `+sz+`,? has `+sz+` available`),
		read: func(r *Report, m match) bool {
			r.Requested, r.Capacity = size(m.g(1)), size(m.g(2))
			return true
		},
	},
	{ // C: TPU compile: "TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, exceeding available bytes: 95.74G"
		id: "C", fatal: true, phase: PhaseCompile, code: codeHbm, backend: BackendTPU,
		pattern: pat("TensorCore Hbm usage", 0,
			`TensorCore Hbm usage:? `+sz+`,? SparseCore Hbm usage:? `+sz+`,? exceeding available bytes:? `+sz),
		read: func(r *Report, m match) bool {
			r.MemorySpace = "hbm"
			r.Used = addSizes(size(m.g(1)), size(m.g(2))) // TensorCore + SparseCore
			r.Capacity = size(m.g(3))
			return true
		},
	},
	{ // D: TPU compile/MSA: "Allocation (size=107374182400) would exceed memory (size=17179869184) :: #allocation7 [shape = '...', space=hbm, size = 0x..., tag = '...'] :: <hlo>"
		id: "D", req: []int{1}, fatal: true, phase: PhaseCompile, code: codeHbm, backend: BackendTPU,
		pattern: pat("Allocation (size=", 0,
			`Allocation \(size=(\d+)\) would exceed memory \(size=(\d+)\)(?: :: #allocation\d+ \[shape = '[^']*', space=(\w+))?`).
			withSpan(2048), // the shape before space= can be a long tuple
		read: func(r *Report, m match) bool {
			r.Requested, r.Capacity = size(m.g(1)), size(m.g(2))
			if sp := strings.ToLower(m.g(3)); sp != "" {
				r.MemorySpace = sp
				if sp != "hbm" {
					r.Code = codeVmem
				}
			}
			return true
		},
	},
	{ // E1: TPU compile, scoped VMEM: "Ran out of memory in memory space vmem while allocating on stack for %my-custom-kernel = bf16[...] custom-call(...)"
		id: "E1", fatal: true, phase: PhaseCompile, code: codeVmem, backend: BackendTPU,
		pattern: pat("y in memory space", len("Ran out of memor"),
			`[Rr]an out of memory in memory space (\w+) while allocating on stack for (%?[^\s=,]+)`),
		read: func(r *Report, m match) bool {
			r.MemorySpace = strings.ToLower(m.g(1))
			r.Instruction = m.g(2)
			return true
		},
	},
	{ // E2: TPU compile, scoped VMEM: "Scoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M."
		id: "E2", req: []int{1}, fatal: true, phase: PhaseCompile, code: codeVmem, backend: BackendTPU,
		pattern: pat("Scoped allocation with size", 0,
			`Scoped allocation with size `+sz+` and limit `+sz+` exceeded scoped (\w+) limit by `+sz),
		read: func(r *Report, m match) bool {
			r.Requested, r.Capacity = size(m.g(1)), size(m.g(2))
			r.MemorySpace = strings.ToLower(m.g(3))
			r.Exceeded = size(m.g(4))
			return true
		},
	},
	{ // F: TPU runtime buffer: "Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)"
		id: "F", req: []int{1}, fatal: true, phase: PhaseRuntime, code: codeBuffer, backend: BackendTPU,
		pattern: pat("Attempting to allocate", 0,
			`Attempting to allocate `+sz+`\.? That was not possible\.? There (?:are|is) `+sz+` free\.?(?:;? ?\(([\w:.\-]+)\))?`),
		read: func(r *Report, m match) bool {
			r.Requested, r.Free = size(m.g(1)), size(m.g(2))
			r.Device = m.g(3)
			return true
		},
	},
	{ // G: TPU runtime program load: "Error loading program 'jit_f': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable."
		id: "G", req: []int{1}, fatal: true, phase: PhaseRuntime, code: codeProgram, backend: BackendTPU,
		pattern: pat("Attempting to reserve", 0,
			`Attempting to reserve `+sz+` at the bottom of memory\.? That was not possible\.? There (?:are|is) `+sz+
				` free,? `+sz+` reserved,? and `+sz+` reservable`),
		read: func(r *Report, m match) bool {
			r.Requested, r.Free, r.Reserved, r.Reservable = size(m.g(1)), size(m.g(2)), size(m.g(3)), size(m.g(4))
			return true
		},
	},
	{ // H: SparseCore compile: "'memref.alloca' op current allocation offset upper bound (140704 words) exceeds the legitimate user allocatable offset upper bound (131071 words) in memory space 201 when allocating 23440 words."
		id: "H", fatal: true, phase: PhaseCompile, code: codeSparseCore, backend: BackendTPU,
		pattern: patUpTo("words) exceeds the legitimate", len("current allocation offset upper bound (")+20,
			`current allocation offset upper bound \((\d+) words\) exceeds the legitimate user allocatable offset upper bound \((\d+) words\)`+
				`(?: in memory space (\d+))?(?: when allocating (\d+) words)?`),
		read: func(r *Report, m match) bool {
			// Words of an unprinted size: no byte size is set.
			r.Words = SparseCoreWords{Offset: atoi(m.g(1)), Limit: atoi(m.g(2)), Requested: atoi(m.g(4))}
			r.MemorySpace = sparseCoreSpace(m.g(3))
			return true
		},
	},
	{ // I: GPU runtime (BFC via the TF allocator adapter): "Out of memory while trying to allocate 6291456 bytes." / "... allocate 1.95GiB with allocator GPU_0_bfc on device 0."
		id: "I", req: []int{2}, fatal: true, phase: PhaseRuntime, code: codeGeneric,
		pattern: pat("Out of ", 0,
			`Out of (host )?memory while trying to allocate `+sz+`(?: bytes)?\.?(?: with allocator ([\w.\-]+) on device (\d+))?`),
		read: func(r *Report, m match) bool {
			if m.g(1) != "" {
				r.MemorySpace = "host"
				r.Backend = BackendCPU
			}
			r.Requested = size(m.g(2))
			if a := m.g(3); a != "" {
				// The allocator adapter that prints this clause serves
				// StreamExecutor (GPU) devices: GPU_0_bfc, gpu_async_0,
				// SE_0_space_0 (platform allocator).
				r.Device = m.g(4)
				if r.Backend = allocatorBackend(a); r.Backend == "" {
					r.Backend = BackendGPU
				}
			}
			return true
		},
	},
	{ // J: GPU runtime (platform allocator): "Failed to allocate request for 32.00MiB (33554432B) on device ordinal 0"
		id: "J", req: []int{2, 1}, fatal: true, phase: PhaseRuntime, code: codeGeneric, backend: BackendGPU,
		pattern: pat("quest for ", len("Failed to allocate re"),
			`[Ff]ailed to allocate request for `+sz+`(?: \((\d+)B\))?(?: on device ordinal (\d+))?`),
		read: func(r *Report, m match) bool {
			r.Requested = exact(m.g(1), m.g(2))
			r.Device = m.g(3)
			return true
		},
	},
	{ // L: GPU BFC allocator warning (log line): "Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.97GiB (rounded to 2110783744)requested by op"
		id: "L", req: []int{3, 2}, phase: PhaseRuntime, code: codeGeneric,
		pattern: pat("Allocator (", 0,
			`Allocator \(([^)\s]+)\) ran out of memory trying to allocate `+sz+
				`(?: \(rounded to (\d+)\))?(?: ?requested by op \S*)?(?: from the \w+ end)?( with freed_by_count=\d+)?`),
		read: func(r *Report, m match) bool {
			if m.g(4) != "" {
				return false // "with freed_by_count=N": the caller tolerates the failure
			}
			a := m.g(1)
			r.Backend, r.Device = allocatorBackend(a), allocatorDevice(a)
			if strings.Contains(strings.ToLower(a), "host") {
				r.MemorySpace = "host"
			}
			r.Requested = exact(m.g(2), m.g(3))
			return true
		},
	},
	{ // M1: CUDA/ROCm driver (log line): "failed to allocate 528.00M (553648128 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory"
		id: "M1", req: []int{2, 1}, phase: PhaseRuntime, code: codeGeneric, backend: BackendGPU,
		pattern: patUpTo("bytes) from device: ", len("failed to allocate  (")+2*20,
			`[Ff]ailed to allocate `+sz+` \((\d+) bytes\) from device: (?:RESOURCE_EXHAUSTED: :? ?)?`+
				`(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|cudaErrorMemoryAllocation|out of memory)`),
		read: func(r *Report, m match) bool {
			r.Requested = exact(m.g(1), m.g(2))
			return true
		},
	},
	{ // M2: GPU preallocation (log line): "[0] Failed to allocate device memory of 28.85GiB (30979129344 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY"
		id: "M2", req: []int{3, 2}, phase: PhaseRuntime, code: codeGeneric, backend: BackendGPU,
		pattern: patUpTo("Failed to allocate device memory of", len("[1234] "),
			`(?:\[(\d+)\] )?Failed to allocate device memory of `+sz+`(?: \((\d+) bytes\))?: `+
				`(?:RESOURCE_EXHAUSTED|Resource exhausted|CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory)`),
		read: func(r *Report, m match) bool {
			r.Device = m.g(1)
			r.Requested = exact(m.g(2), m.g(3))
			return true
		},
	},
	{ // N: cudaMallocAsync allocator (log line): "gpu_async_1 cuMemAllocAsync failed to allocate 1225195446464 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY"
		id: "N", req: []int{2}, phase: PhaseRuntime, code: codeGeneric, backend: BackendGPU,
		pattern: patUpTo("Async failed to allocate", 64,
			`(?:([\w.\-]+) )?cu(?:MemAlloc|daMalloc)Async failed to allocate (\d+)(?: bytes)?`),
		read: func(r *Report, m match) bool {
			r.Device = allocatorDevice(m.g(1))
			r.Requested = size(m.g(2))
			return true
		},
	},
	{ // O: CPU runtime: "Out of memory allocating 41246000000 bytes."
		id: "O", req: []int{1}, fatal: true, phase: PhaseRuntime, code: codeGeneric, backend: BackendCPU,
		pattern: pat("Out of memory allocating", 0, `Out of memory allocating (\d+(?:,\d{3})*) bytes`),
		read: func(r *Report, m match) bool {
			r.Requested = size(m.g(1))
			return true
		},
	},
	{ // R (beyond the reference's index; seen in real jax 0.11 GPU captures, testdata/real): the GPU
		// autotuner ran out of memory while compiling: "RESOURCE_EXHAUSTED: Failed to get configs for: 3 out
		// of 3 instructions. See logs for all failures. Example failure: Out of memory while trying to allocate ..."
		id: "R", fatal: true, phase: PhaseCompile, code: codeGeneric,
		pattern: pat("Failed to get configs for", len("RESOURCE_EXHAUSTED: "),
			`(?:RESOURCE_EXHAUSTED|Resource exhausted): Failed to get configs for:? \d+ out of \d+ instructions`),
		read: func(*Report, match) bool { return true }, // the sizes come from the example failure that follows
	},
}

// detail is a phrase that adds facts to whichever failure the record holds.
// Details only fill fields the failure itself left empty. They are short and
// fixed, so they are read with string operations, not regexps: after is the
// text that follows the anchor (at most detailSpan bytes), before the text
// that precedes it (at most detailSpan bytes).
type detail struct {
	anchor string
	read   func(r *Report, before, after string)
}

const detailSpan = 256

var details = []detail{
	{ // P: pjrt log line: "Execution of replica 0 failed: RESOURCE_EXHAUSTED: ..."
		"Execution of replica ", func(r *Report, _, a string) {
			if n, rest := leadingDigits(a); n != "" && strings.HasPrefix(rest, " failed") {
				setReplica(r, n)
			}
		},
	},
	{ // P: "...: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well)."
		// Old PyLocalClient text lacks a space: "of areplicated computation".
		"while running replica ", func(r *Report, _, a string) {
			rep, rest := leadingDigits(a)
			rest, ok := strings.CutPrefix(rest, " and partition ")
			part, rest := leadingDigits(rest)
			if rep != "" && ok && part != "" &&
				(strings.HasPrefix(rest, " of a replicated computation") || strings.HasPrefix(rest, " of areplicated computation")) {
				setReplica(r, rep)
				setPartition(r, part)
			}
		},
	},
	{ // Program being loaded: "Error loading program 'jit_embedding_pipeline_step_fn': ..."
		"Error loading program", func(r *Report, _, a string) {
			a = strings.TrimPrefix(strings.TrimPrefix(a, " "), "[")
			setString(&r.Program, quoted(a))
		},
	},
	{ // Status payload: "[executable_name='jit_train_step']"
		"[executable_name=", func(r *Report, _, a string) {
			if name := quoted(a); name != "" && strings.HasPrefix(a[len(name)+2:], "]") {
				setString(&r.Program, name)
			}
		},
	},
	{ // PyTorch/XLA: "Exception in device=TPU:6: RESOURCE_EXHAUSTED: ..."
		"Exception in device=", func(r *Report, _, a string) {
			k := 0
			for k < len(a) && (a[k] >= 'A' && a[k] <= 'Z' || a[k] >= 'a' && a[k] <= 'z') {
				k++
			}
			if n, _ := leadingDigits(a[min(k+1, len(a)):]); k > 0 && hasAt(a, k, ":") && n != "" {
				setString(&r.Device, a[:k+1+len(n)])
			}
		},
	},
	{ // TPU memory id anywhere in the record: "(0x0x1_HBM0)", "(1x0x0_HBM0)", "0x3x0_HBM1"
		"_HBM", func(r *Report, b, a string) {
			n, _ := leadingDigits(a)
			chip := chipID(b)
			if n != "" && chip != "" {
				setString(&r.Device, chip+"_HBM"+n)
			}
		},
	},
	{ // cudaMallocAsync: " Reported by CUDA: Free memory/Total memory: 22635544576/85095874560"
		"Free memory/Total memory: ", func(r *Report, _, a string) {
			free, rest := leadingDigits(a)
			total, _ := leadingDigits(strings.TrimPrefix(rest, "/"))
			if free != "" && total != "" && strings.HasPrefix(rest, "/") {
				setSize(&r.Free, free)
				setSize(&r.Capacity, total)
			}
		},
	},
	{ // BFC allocator (2025+): "Allocator memory summary: rounded request 1.50GiB, total free in pool
		// 1.96GiB, largest free chunk usable by lower end 1.00GiB, unallocated bytes 0B, pool size 3.96GiB,
		// pool limit 3.96GiB". What the allocator could still hand out is the pool's free memory plus the
		// bytes it has not yet claimed; the pool limit is not the device, so it is PoolLimit, not Capacity.
		"Allocator memory summary: ", func(r *Report, _, a string) {
			free, unallocated := summaryField(a, "total free in pool "), summaryField(a, "unallocated bytes ")
			if !r.Free.Known {
				r.Free = addSizes(size(free), size(unallocated))
			}
			setSize(&r.PoolLimit, summaryField(a, "pool limit "))
		},
	},
	{ // cudaMallocAsync allocator stats: "Stats: Limit:                        59.38GiB\nInUse: ..."
		"Stats: Limit:", func(r *Report, _, a string) {
			if f := strings.Fields(a); len(f) > 0 && len(f[0]) <= 24 {
				setSize(&r.PoolLimit, f[0])
			}
		},
	},
	{ // GPU autotuning (compilation) that ran out of memory: "Failed to get configs for: 3 out of 3
		// instructions. See logs for all failures. Example failure: Out of memory while trying to allocate ..."
		"Failed to get configs for", func(r *Report, _, _ string) { r.Phase = PhaseCompile },
	},
	{ // the per-instruction log line: "Could not get config for HLO: %fusion = ... Status: RESOURCE_EXHAUSTED: Out of memory ..."
		"Could not get config for HLO", func(r *Report, _, _ string) { r.Phase = PhaseCompile },
	},
	{ // XRT-era program-load breakdown: "HBM capacity 8.00G:"
		"HBM capacity ", func(r *Report, _, a string) {
			if tok, _, ok := strings.Cut(a, ":"); ok && len(tok) <= 24 && size(tok).Known {
				setSize(&r.Capacity, tok)
				setString(&r.MemorySpace, "hbm")
			}
		},
	},
}

// Q: error-code tokens. The factory format is "E1000: CompileTimeHbmOom:\n<msg>
// \nSee https://openxla.org/xla/errors/error_1000 for more details.";
// AnnotateWithCode uses ": " after the name; older builds appended
// "https://openxla.org/xla/errors#e1000"; some builds print the bare name.
var (
	codeNameEnds = []string{"Oom:", "Failure:", "Exhausted:"} // how every catalog name ends
	codeURL      = "openxla.org/xla/errors"                   // then "/error_1000" or "#e1000"
)

// guards are phrases that, right before a match in the same sentence, show
// that the allocation failure was not fatal or not a device OOM.
var guards = []string{
	"Failed to determine best cudnn convolution algorithm", // the autotuner falls back to another algorithm
	"CUDA backend failed to initialize",                    // JAX start-up warning, not an OOM of a program
}

// foreignFailures are failures of other runtimes. A record that holds one
// and only allocator or driver warnings (no XLA status) is not an XLA OOM.
var foreignFailures = []string{
	"OOM when allocating tensor", // TensorFlow's own (non-XLA) kernels, which share the BFC allocator
}

// Figures and names that reveal the backend when the failure's own text does
// not (checked in order; the first backend with a hit wins, ties leave it out).
var backendEvidence = []struct {
	backend string
	tokens  []string
}{
	{BackendTPU, []string{"XLA:TPU", "_HBM", "SparseCore", "TensorCore", "libtpu", "device=TPU:", "/job:tpu_worker", "tpu_execute", "TPU:"}},
	{BackendGPU, []string{"GPU_", "gpu_", "GPU:", "CUDA", "cuda_", "cuMem", "cudaMalloc", "HIP_", "ROCm", "rocm", "device ordinal", "BufferAssignment OOM Debugging", "NVIDIA"}},
	{BackendCPU, []string{"TFRT_CPU", "cpu_client", "/device:CPU:"}},
}
