package oom

import "strings"

// The grammar of XLA OOM messages, in one place: one entry per message family
// of the quick index in shared/reference/xla-oom-formats.md (§0), letters A–O;
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
}

var families = []family{
	{ // A: TPU compile: "Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G."
		id: "A", fatal: true, phase: PhaseCompile, code: codeHbm, backend: BackendTPU,
		pattern: pat("an out of memory in memory space", 1,
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
		id: "B", fatal: true, phase: PhaseCompile, code: codeHbm, backend: BackendTPU,
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
		id: "D", fatal: true, phase: PhaseCompile, code: codeHbm, backend: BackendTPU,
		pattern: pat("Allocation (size=", 0,
			`Allocation \(size=(\d+)\) would exceed memory \(size=(\d+)\)(?: :: #allocation\d+ \[shape = '[^']*', space=(\w+))?`),
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
		pattern: pat("an out of memory in memory space", 1,
			`[Rr]an out of memory in memory space (\w+) while allocating on stack for (%?[^\s=,]+)`),
		read: func(r *Report, m match) bool {
			r.MemorySpace = strings.ToLower(m.g(1))
			r.Instruction = m.g(2)
			return true
		},
	},
	{ // E2: TPU compile, scoped VMEM: "Scoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M."
		id: "E2", fatal: true, phase: PhaseCompile, code: codeVmem, backend: BackendTPU,
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
		id: "F", fatal: true, phase: PhaseRuntime, code: codeBuffer, backend: BackendTPU,
		pattern: pat("Attempting to allocate", 0,
			`Attempting to allocate `+sz+`\.? That was not possible\.? There are `+sz+` free\.?(?:;? ?\(([\w:.\-]+)\))?`),
		read: func(r *Report, m match) bool {
			r.Requested, r.Free = size(m.g(1)), size(m.g(2))
			r.Device = m.g(3)
			return true
		},
	},
	{ // G: TPU runtime program load: "Error loading program 'jit_f': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable."
		id: "G", fatal: true, phase: PhaseRuntime, code: codeProgram, backend: BackendTPU,
		pattern: pat("Attempting to reserve", 0,
			`Attempting to reserve `+sz+` at the bottom of memory\.? That was not possible\.? There are `+sz+
				` free,? `+sz+` reserved,? and `+sz+` reservable`),
		read: func(r *Report, m match) bool {
			r.Requested, r.Free, r.Reserved, r.Reservable = size(m.g(1)), size(m.g(2)), size(m.g(3)), size(m.g(4))
			return true
		},
	},
	{ // H: SparseCore compile: "'memref.alloca' op current allocation offset upper bound (140704 words) exceeds the legitimate user allocatable offset upper bound (131071 words) in memory space 201 when allocating 23440 words."
		id: "H", fatal: true, phase: PhaseCompile, code: codeSparseCore, backend: BackendTPU,
		pattern: pat("current allocation offset upper bound", 0,
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
		id: "I", fatal: true, phase: PhaseRuntime, code: codeGeneric,
		pattern: pat("memory while trying to allocate", len("Out of host "),
			`Out of (host )?memory while trying to allocate `+sz+`(?: bytes)?\.?(?: with allocator ([\w.\-]+) on device (\d+))?`),
		read: func(r *Report, m match) bool {
			if m.g(1) != "" {
				r.MemorySpace = "host"
				r.Backend = BackendCPU
			}
			r.Requested = size(m.g(2))
			if a := m.g(3); a != "" {
				r.Device = m.g(4)
				r.Backend = allocatorBackend(a)
			}
			return true
		},
	},
	{ // J: GPU runtime (platform allocator): "Failed to allocate request for 32.00MiB (33554432B) on device ordinal 0"
		id: "J", fatal: true, phase: PhaseRuntime, code: codeGeneric, backend: BackendGPU,
		pattern: pat("ailed to allocate request for", 1,
			`[Ff]ailed to allocate request for `+sz+`(?: \((\d+)B\))?(?: on device ordinal (\d+))?`),
		read: func(r *Report, m match) bool {
			r.Requested = exact(m.g(1), m.g(2))
			r.Device = m.g(3)
			return true
		},
	},
	{ // L: GPU BFC allocator warning (log line): "Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.97GiB (rounded to 2110783744)requested by op"
		id: "L", phase: PhaseRuntime, code: codeGeneric,
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
		id: "M1", phase: PhaseRuntime, code: codeGeneric, backend: BackendGPU,
		pattern: pat("ailed to allocate ", 1,
			`[Ff]ailed to allocate `+sz+` \((\d+) bytes\) from device: (?:RESOURCE_EXHAUSTED: :? ?)?`+
				`(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|cudaErrorMemoryAllocation|out of memory)`),
		read: func(r *Report, m match) bool {
			r.Requested = exact(m.g(1), m.g(2))
			return true
		},
	},
	{ // M2: GPU preallocation (log line): "[0] Failed to allocate device memory of 28.85GiB (30979129344 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY"
		id: "M2", phase: PhaseRuntime, code: codeGeneric, backend: BackendGPU,
		pattern: pat("Failed to allocate device memory of", len("[1234] "),
			`(?:\[(\d+)\] )?Failed to allocate device memory of `+sz+`(?: \((\d+) bytes\))?: `+
				`(?:RESOURCE_EXHAUSTED|Resource exhausted|CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory)`),
		read: func(r *Report, m match) bool {
			r.Device = m.g(1)
			r.Requested = exact(m.g(2), m.g(3))
			return true
		},
	},
	{ // N: cudaMallocAsync allocator (log line): "gpu_async_1 cuMemAllocAsync failed to allocate 1225195446464 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY"
		id: "N", phase: PhaseRuntime, code: codeGeneric, backend: BackendGPU,
		pattern: pat("Async failed to allocate", 64,
			`(?:([\w.\-]+) )?cu(?:MemAlloc|daMalloc)Async failed to allocate (\d+)(?: bytes)?`),
		read: func(r *Report, m match) bool {
			r.Device = allocatorDevice(m.g(1))
			r.Requested = size(m.g(2))
			return true
		},
	},
	{ // O: CPU runtime: "Out of memory allocating 41246000000 bytes."
		id: "O", fatal: true, phase: PhaseRuntime, code: codeGeneric, backend: BackendCPU,
		pattern: pat("Out of memory allocating", 0, `Out of memory allocating (\d+(?:,\d{3})*) bytes`),
		read: func(r *Report, m match) bool {
			r.Requested = size(m.g(1))
			return true
		},
	},
}

// detail is a phrase that adds facts to whichever failure the record holds.
// Details only fill fields the failure itself left empty.
type detail struct {
	pattern
	read func(r *Report, m match)
}

var details = []detail{
	{ // P: pjrt log line: "Execution of replica 0 failed: RESOURCE_EXHAUSTED: ..."
		pat("Execution of replica", 0, `Execution of replica (\d+) failed`),
		func(r *Report, m match) { setReplica(r, m.g(1)) },
	},
	{ // P: "...: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well)."
		// Old PyLocalClient text lacks a space: "of areplicated computation".
		pat("while running replica", 0, `while running replica (\d+) and partition (\d+) of a ?replicated computation`),
		func(r *Report, m match) { setReplica(r, m.g(1)); setPartition(r, m.g(2)) },
	},
	{ // Program being loaded: "Error loading program 'jit_embedding_pipeline_step_fn': ..."
		pat("Error loading program", 0, `Error loading program ?\[?'([^']+)'`),
		func(r *Report, m match) { setString(&r.Program, m.g(1)) },
	},
	{ // Status payload: "[executable_name='jit_train_step']"
		pat("[executable_name='", 0, `\[executable_name='([^']+)'\]`),
		func(r *Report, m match) { setString(&r.Program, m.g(1)) },
	},
	{ // PyTorch/XLA: "Exception in device=TPU:6: RESOURCE_EXHAUSTED: ..."
		pat("Exception in device=", 0, `Exception in device=([A-Za-z]+:\d+)`),
		func(r *Report, m match) { setString(&r.Device, m.g(1)) },
	},
	{ // TPU memory id anywhere in the record: "(0x0x1_HBM0)", "(1x0x0_HBM0)", "0x3x0_HBM1"
		pat("_HBM", 24, `(\d+x\d+x\d+_HBM\d+)`),
		func(r *Report, m match) { setString(&r.Device, m.g(1)) },
	},
	{ // cudaMallocAsync: " Reported by CUDA: Free memory/Total memory: 22635544576/85095874560"
		pat("Free memory/Total memory: ", 0, `Free memory/Total memory: (\d+)/(\d+)`),
		func(r *Report, m match) { setSize(&r.Free, m.g(1)); setSize(&r.Capacity, m.g(2)) },
	},
	{ // XRT-era program-load breakdown: "HBM capacity 8.00G:"
		pat("HBM capacity ", 0, `HBM capacity `+sz+`:`),
		func(r *Report, m match) { setSize(&r.Capacity, m.g(1)); setString(&r.MemorySpace, "hbm") },
	},
}

// Q: error-code tokens. The factory format is "E1000: CompileTimeHbmOom:\n<msg>
// \nSee https://openxla.org/xla/errors/error_1000 for more details.";
// AnnotateWithCode uses ": " after the name; older builds appended
// "https://openxla.org/xla/errors#e1000"; some builds print the bare name.
var (
	codeNames = func() []string { // the catalog names, with their trailing colon
		var n []string
		for _, e := range catalog {
			n = append(n, e.Name+":")
		}
		return n
	}()
	codeURLs = []pattern{
		pat("openxla.org/xla/errors/error_", 0, `openxla\.org/xla/errors/error_(\d{4})`),
		pat("openxla.org/xla/errors#", 0, `openxla\.org/xla/errors#[eE](\d{4})`),
	}
)

// guards are phrases that, right before a match in the same sentence, show
// that the allocation failure was not fatal or not a device OOM.
var guards = []string{
	"Failed to determine best cudnn convolution algorithm", // the autotuner falls back to another algorithm
	"CUDA backend failed to initialize",                    // JAX start-up warning, not an OOM of a program
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
