// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// GPU families: XLA's allocators' statuses (E0007), the allocator and driver lines on the way, the autotuner's.

var gpuFamilies = []grammar.Family{
	{
		ID:      "gpu-allocator-status",
		Summary: "XLA's device allocator (BFC via the TensorFlow adapter, or the pinned host allocator) returned out of memory.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime,
		Anchor: "Out of ",
		Expr: `Out of (?P<host>host )?memory while trying to allocate ` + grammar.SizeGroup("requested") +
			`(?: bytes)?\.?(?: with allocator (?P<allocator>[\w.\-]+) on device (?P<device>\d+))?`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			if m.Group("host") != "" {
				r.MemorySpace = "host"
				r.Backend = grammar.BackendCPU
			}
			if a := m.Group("allocator"); a != "" {
				// The adapter printing this clause serves StreamExecutor devices (GPU_0_bfc, SE_0_space_0).
				if r.Backend = grammar.AllocatorBackend(a); r.Backend == "" {
					r.Backend = grammar.BackendGPU
				}
			}
			return true
		},
		Cues:    []logtext.Cue{{Text: "allocate", SizeAfter: true}, {Text: "BufferAssignment OOM"}},
		Example: `XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 214748364800 bytes.`,
	},
	{
		ID:      "gpu-platform-allocator",
		Summary: "The platform allocator (allocating on demand) could not get the request from the device.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		// "re|quest for ": from the rare "q" (see tpu-compile-hbm-used).
		Anchor:  "quest for ",
		Expr:    `[Ff]ailed to allocate request for ` + grammar.SizeGroup("requested") + `(?: \((?P<requested_exact>\d+)B\))?(?: on device ordinal (?P<device>\d+))?`,
		Cues:    []logtext.Cue{{Text: "request for", SizeAfter: true}},
		Example: `RuntimeError: Resource exhausted: Failed to allocate request for 32.00MiB (33554432B) on device ordinal 0`,
	},
	{
		ID:      "gpu-bfc-allocator",
		Summary: "The BFC allocator's warning that its pool has no block for the request (log line).",
		Kind:    grammar.LogOnly, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime,
		Anchor: "Allocator (",
		Expr: `Allocator \((?P<allocator>[^)\s]+)\) ran out of memory trying to allocate ` + grammar.SizeGroup("requested") +
			`(?: \(rounded to (?P<requested_exact>\d+)\))?(?: ?requested by op \S*)?(?: from the \w+ end)?(?P<freed_by_count> with freed_by_count=\d+)?` +
			`(?P<not_failure>\. The caller indicates that this is not a failure)?`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			if m.Group("freed_by_count") != "" || m.Group("not_failure") != "" {
				return false // "with freed_by_count=N", or TF 1.1-1.13's "The caller indicates that this is not a failure": tolerated
			}
			a := m.Group("allocator")
			r.Backend, r.Device = grammar.AllocatorBackend(a), grammar.AllocatorDevice(a)
			if strings.Contains(strings.ToLower(a), "host") {
				r.MemorySpace = "host"
			}
			return true
		},
		Cues:    []logtext.Cue{{Text: "allocate", SizeAfter: true}},
		Advice:  grammar.AdviceTraits{SuggestAsyncAllocator: true},
		Example: `W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.50GiB (rounded to 4831838208)requested by op `,
	},
	{
		ID:      "gpu-bfc-allocator-tf1",
		Summary: "The BFC allocator's warning of TensorFlow 0.8-1.0 (no allocator name), printed after its memory dump (log line).",
		Kind:    grammar.LogOnly, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor:  "See logs for memory state",
		Expr:    `Ran out of memory trying to allocate ` + grammar.SizeGroup("requested") + `\. See logs for memory state`,
		Cues:    []logtext.Cue{{Text: "allocate", SizeAfter: true}},
		Advice:  grammar.AdviceTraits{SuggestAsyncAllocator: true},
		Example: `W tensorflow/core/common_runtime/bfc_allocator.cc:268] Ran out of memory trying to allocate 1.00GiB.  See logs for memory state.`,
	},
	{
		// ROCm's wrapper returns its refusal as a status since 2026-07.
		ID:      "gpu-driver-alloc-status",
		Summary: "The CUDA or ROCm driver refused a device allocation, returned as the failing status.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: " from device: ",
		Expr: `(?:RESOURCE_EXHAUSTED|Resource exhausted|INTERNAL|Internal): [Ff]ailed to allocate (?:` + grammar.SizeGroup("requested") + ` \((?P<requested_exact>\d+) bytes\)|(?P<requested_bytes>\d+) bytes) from device: ` +
			`(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|hipError_t\(1002\)|cudaErrorMemoryAllocation|out of memory)`,
		Read:    readRequestedBytes,
		Cues:    []logtext.Cue{{Text: "allocate", SizeAfter: true}},
		Example: `jax.errors.JaxRuntimeError: INTERNAL: failed to allocate 165425291480 bytes from device: hipErrorOutOfMemory`,
	},
	{
		ID:      "gpu-stream-executor-limit",
		Summary: "A StreamExecutor device allocation would pass the memory limit set for the device (log line; the allocation fails).",
		Kind:    grammar.LogOnly, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime,
		Anchor:  "Not enough memory to allocate ",
		Expr:    `Not enough memory to allocate (?P<requested>\d+) on device (?P<device>\d+) within provided limit\. limit=(?P<pool_limit>\d+)`,
		Cues:    []logtext.Cue{{Text: "memory to allocate"}},
		Example: `W0822 14:03:11.512345  181818 stream_executor.h:442] Not enough memory to allocate 1073741824 on device 0 within provided limit. limit=4294967296]`,
	},
	{
		ID:      "gpu-sycl-device-alloc",
		Summary: "The SYCL (oneAPI) runtime could not allocate device memory (log line).",
		Kind:    grammar.LogOnly, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor:  "DeviceAllocate: Failed to allocate device memory of size ",
		Expr:    `DeviceAllocate: Failed to allocate device memory of size (?P<requested>\d+)`,
		Example: `E0822 14:03:11.512345  181818 sycl_executor.cc:328] DeviceAllocate: Failed to allocate device memory of size 17179869184, got RESOURCE_EXHAUSTED: SyclMallocDevice: Failed to allocate device memory: out of device memory`,
	},
	{
		// The allocator retries only its start-up reservation: any other refusal is the request failing.
		ID:      "gpu-cuda-async-allocator",
		Summary: "The cudaMallocAsync allocator could not allocate a request (log line); CUDA's free/total figures often follow.",
		Kind:    grammar.LogOnly, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: "Async failed to allocate",
		Expr:   asyncRefusalExpr,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			r.Device = grammar.AllocatorDevice(m.Group("allocator"))
			var figures grammar.Report
			readCUDAFreeTotal(&figures, m)
			return !asyncPoolReservation(r.Requested, figures.Capacity)
		},
		Example: "E1103 18:23:55.103160 3413767 gpu_cudamallocasync_allocator.cc:361] gpu_async_0 cuMemAllocAsync failed to allocate 1073741824 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			" Reported by CUDA: Free memory/Total memory: 2147483648/85095874560",
	},
	{
		ID:      "gpu-collective-memory",
		Summary: "Collective memory (NCCL/RCCL user buffers, ROCm MORI) could not be allocated on the device.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: "bytes) from ",
		Expr:   `[Ff]ailed to allocate ` + grammar.SizeGroup("requested") + ` \((?P<requested_exact>\d+) bytes\) from (?:MORI memory|device collective memory)`,
		Advice: grammar.AdviceTraits{
			Note:       "Collective buffers are allocated next to XLA's buffer pool: lower XLA_PYTHON_CLIENT_MEM_FRACTION to leave them room, or shrink the collectives (smaller per-step all-reduce/all-gather sizes).",
			NoteAction: grammar.ActionSetMemoryLimit,
		},
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from MORI memory`,
	},
	{
		ID:      "gpu-vmm-allocator",
		Summary: "The VMM allocator (XLA_PYTHON_CLIENT_ALLOCATOR=vmm) had no physical-memory budget left for the allocation.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: "Not enough PA budget: ",
		// pa_budget is the allocator's budget, not the GPU: the pool limit.
		Expr:    `Not enough PA budget: pa_allocated=(?P<used>\d+)B, allocation_size=(?P<requested>\d+)B, pa_budget=(?P<pool_limit>\d+)B`,
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Not enough PA budget: pa_allocated=79456894976B, allocation_size=1073741824B, pa_budget=80000000000B`,
	},
	{
		ID:      "gpu-jaxlib-workspace",
		Summary: "A jaxlib GPU kernel (cuSOLVER/hipSOLVER, cuSPARSE) could not allocate its device workspace.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor:  "workspace for ",
		Expr:    `Unable to allocate (?:device )?workspace for (?P<instruction>\w+)`,
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Unable to allocate device workspace for syevd`,
	},
}

// After every runtime family: its status wraps an example failure whose own message gives the sizes.
var gpuAutotunerFamilies = []grammar.Family{
	{
		ID:      "gpu-compile-autotuner",
		Summary: "The GPU autotuner ran out of memory while compiling (seen in real JAX GPU captures).",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseCompile,
		Anchor:  "Failed to get configs for",
		Expr:    `(?:RESOURCE_EXHAUSTED|Resource exhausted): Failed to get configs for:? \d+ out of \d+ instructions`,
		Example: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to get configs for: 3 out of 3 instructions. See logs for all failures. Example failure: ",
	},
}

// GPU driver families: the CUDA or ROCm driver out of device memory outside XLA's pool. The status varies by
// build, so the driver's error name, which ends every expression, makes them OOMs (xla/stream_executor, 2022-2026).

// driverOutOfMemory is the driver's out-of-memory error; hipError_t(1002) is older ROCm's.
const driverOutOfMemory = `(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|hipError_t\(1002\))`

// Categories that say what failed; the code stays E0007.
const (
	categoryKernelLaunch = "GPU Driver: Kernel Launch Out of Memory"
	categoryModuleLoad   = "GPU Driver: Module Load Out of Memory"
	categoryContextInit  = "GPU Driver: Device Initialization Out of Memory"
	categoryUnified      = "GPU Driver: Unified Memory Allocation Failure"
	categoryConstant     = "GPU Runtime: Constant Allocation Failure"
	categoryGraph        = "GPU Runtime: Command Buffer Instantiation Out of Memory"
	categoryPoolSetup    = "GPU Driver: Memory Pool Allocation Failure"
)

var gpuDriverFamilies = []grammar.Family{
	{
		// A real job (testdata/jobs/two_jobs_second.log) raised the driver's status itself; the same words end
		// every attempt's log line, so only the raised status counts.
		ID:      "gpu-driver-status",
		Summary: "The driver's own out-of-memory status, raised with no message of XLA's: XLA's memory pool could not be set up or grown, usually because another process or library holds the GPU.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: categoryPoolSetup,
		Anchor:  "RESOURCE_EXHAUSTED: : ",
		Expr:    `RESOURCE_EXHAUSTED: : ` + driverOutOfMemory,
		Read:    raisedStatus,
		Advice:  grammar.AdviceTraits{Own: driverStatusAdvice, OwnAction: grammar.ConstAction(grammar.ActionFreeHeldMemory)},
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory [executable_name='jit_broadcast_in_dim']`,
	},
	{
		ID:      "gpu-driver-kernel-launch",
		Summary: "The driver had no device memory left to launch a kernel (its local memory and launch resources live outside XLA's pool).",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: categoryKernelLaunch,
		Anchor: "Failed to launch ",
		Expr: `Failed to launch (?:CUDA|ROCm) kernel: (?P<instruction>[^\s;:]+)` +
			`(?: with block dimensions: [\dx]+(?: and grid dimensions: [\dx]+)?)?(?:; [\w ]+: [\dx]+)*: ` + driverOutOfMemory,
		Advice:  grammar.AdviceTraits{Own: kernelLaunchAdvice, OwnAction: grammar.ConstAction(grammar.ActionSetMemoryLimit)},
		Example: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch CUDA kernel: fusion_12 with block dimensions: 128x1x1 and grid dimensions: 2048x1x1: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
	{
		ID:      "gpu-driver-module-load",
		Summary: "The driver had no device memory left to load a compiled module (CUBIN, PTX or HSACO).",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: categoryModuleLoad,
		Anchor: "Failed to load ",
		Expr: `Failed to load (?:in-memory CUBIN(?: \(compiled for a different GPU\?\)\.)?|PTX text as a module|HSACO):(?: :)? ` +
			driverOutOfMemory,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			r.Device = devicePrefix(m)
			return true
		},
		Advice:  grammar.AdviceTraits{Own: moduleLoadAdvice, OwnAction: grammar.ConstAction(grammar.ActionSetMemoryLimit)},
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: [0] Failed to load in-memory CUBIN (compiled for a different GPU?).: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
	{
		ID:      "gpu-driver-context-init",
		Summary: "The driver had no device memory left to create the process's context at start-up: another process holds the GPU.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: categoryContextInit,
		Anchor: "DevicePrimaryCtxRetain: ",
		Expr:   `failed call to (?:cu|hip)DevicePrimaryCtxRetain: ` + driverOutOfMemory + `(?:: out of memory)?(?:; total memory reported: (?P<capacity>\d+))?`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			// A device's total is never printed shortened: read it even at the end of the text.
			r.Capacity = grammar.ParseSizeToken(m.Group("capacity"))
			return true
		},
		Advice:  grammar.AdviceTraits{Own: contextInitAdvice, OwnAction: grammar.ConstAction(grammar.ActionFreeHeldMemory)},
		Example: `E0413 10:22:33.123456 1234 cuda_driver.cc:268] failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 34089730048`,
	},
	{
		ID:      "gpu-driver-unified-memory",
		Summary: "The driver could not allocate unified (managed) or pinned host memory for XLA.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: categoryUnified,
		Anchor: "Failed to allocate ",
		Expr: `Failed to allocate ` + grammar.SizeGroup("requested") + ` \((?P<requested_exact>\d+) bytes\) of ` +
			`(?:(?P<kind>unified|pinned host) memory:(?: :)? ` + driverOutOfMemory + `|host memory pinned to NUMA node \d+)`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			if m.Group("kind") != "unified" {
				r.MemorySpace = "host"
			}
			r.Device = devicePrefix(m)
			return true
		},
		Advice:  grammar.AdviceTraits{Own: unifiedMemoryAdvice, OwnAction: unifiedMemoryAction},
		Example: `INTERNAL: [0] Failed to allocate 2.00GiB (2147483648 bytes) of unified memory: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
	{
		ID:      "gpu-driver-unified-memory-log",
		Summary: "The driver could not allocate unified (managed) or pinned host memory (log line of older builds).",
		Kind:    grammar.LogOnly, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: categoryUnified,
		Anchor: "failed to alloc ",
		Expr:   `failed to alloc (?P<requested>\d+) bytes (?:unified memory; result:|(?P<host>on host):) ` + driverOutOfMemory,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			if m.Group("host") != "" {
				r.MemorySpace = "host"
			}
			return true
		},
		Advice:  grammar.AdviceTraits{Own: unifiedMemoryAdvice, OwnAction: unifiedMemoryAction},
		Example: `E0101 09:00:00.000000 4242 cuda_driver.cc:1231] failed to alloc 2147483648 bytes unified memory; result: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
	{
		ID:      "gpu-runtime-constant-allocation",
		Summary: "The device had no memory left for the compiled program's constants, copied outside XLA's pool when it loads.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: categoryConstant,
		Anchor: "Failed to allocate ",
		Expr:   `Failed to allocate (?P<requested>\d+) bytes for new constant`,
		// Its cue is the last-resort layer's "ailed to allocate", bare or behind any status.
		Advice:  grammar.AdviceTraits{Own: constantAdvice, OwnAction: grammar.ConstAction(grammar.ActionShrinkFootprint)},
		Example: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to allocate 1048576 bytes for new constant`,
	},
	{
		// gpu_command_buffer.cc (2025+): a CUDA graph needs driver memory outside XLA's pool.
		ID:      "gpu-runtime-command-buffer",
		Summary: "The driver had no memory left to instantiate a command buffer (CUDA graph) of the compiled program.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: categoryGraph,
		Anchor: "ran out of memory trying to instantiate command buffer",
		Expr: `Underlying backend ran out of memory trying to instantiate command buffer with \d+` +
			`(?: \(total of \d+ alive graphs in the process\))?`,
		Advice:  grammar.AdviceTraits{Own: commandBufferAdvice, OwnAction: grammar.ConstAction(grammar.ActionSetMemoryLimit)},
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Underlying backend ran out of memory trying to instantiate command buffer with 37 (total of 2 alive graphs in the process). You can try to (a) Give more memory to the driver by reducing XLA_CLIENT_MEM_FRACTION (b) Disable command buffers with 'XLA_FLAGS=--xla_gpu_enable_command_buffer=' (empty set). Original error: Failed to instantiate CUDA graph: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
}

const roomForTheDriver = "XLA preallocates 75% of the GPU for its buffer pool; the driver needs the rest for contexts, loaded modules and kernel resources. " +
	"Leave it more room: lower XLA_PYTHON_CLIENT_MEM_FRACTION (e.g. .70 or .60), or set XLA_PYTHON_CLIENT_PREALLOCATE=false so XLA allocates on demand."

const anotherProcess = "Check with nvidia-smi (rocm-smi on AMD) whether another process holds memory on the same GPU; give each process its own GPU (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES) or cap every process's XLA_PYTHON_CLIENT_MEM_FRACTION so they fit together."

// outsidePool is the advice of a failure outside XLA's pool: what failed, room for the driver, other processes.
func outsidePool(what string, more ...string) []string {
	return append([]string{what, roomForTheDriver, anotherProcess}, more...)
}

func kernelLaunchAdvice(r *grammar.Report) []string {
	k := "a kernel"
	if r.Instruction != "" {
		k = "kernel " + r.Instruction
	}
	return outsidePool("The GPU driver could not get memory to launch "+k+": its local memory, stack and launch resources are allocated outside XLA's buffer pool, and the pool left none.",
		"If the kernel is a custom one (Pallas, Triton, a custom call) with a large per-thread stack or many threads, a smaller block size needs less.")
}

func commandBufferAdvice(*grammar.Report) []string {
	return []string{"XLA runs parts of the program as CUDA graphs (command buffers); instantiating one needs driver memory outside XLA's buffer pool, and none was left.",
		roomForTheDriver,
		"Or turn command buffers off (slower launches, no graph memory): XLA_FLAGS=--xla_gpu_enable_command_buffer= (an empty list).",
		anotherProcess}
}

func moduleLoadAdvice(*grammar.Report) []string {
	return outsidePool("Loading the compiled GPU code (CUBIN, PTX or HSACO) needs device memory outside XLA's buffer pool, and none was left.",
		"Every distinct compiled program keeps its modules loaded: compile fewer variants (fixed input shapes, fewer static arguments) in long-running processes.")
}

func contextInitAdvice(r *grammar.Report) []string {
	s := "The GPU had no memory left to create this process's driver context (a few hundred MiB)"
	if r.Capacity.Known {
		s += " although it has " + grammar.HumanSize(r.Capacity) + " in total"
	}
	return []string{s + ": another process holds the GPU. " + anotherProcess,
		"Several JAX processes on one GPU each preallocate 75% of it by default: run one process per GPU, or set XLA_PYTHON_CLIENT_PREALLOCATE=false (or a smaller XLA_PYTHON_CLIENT_MEM_FRACTION) in every one of them.",
		"If another framework or a second client in this same process started first and preallocated (XLA's preallocation included), it left no room for this context: start this one first, or lower the first one's share."}
}

func unifiedMemoryAdvice(r *grammar.Report) []string {
	if r.MemorySpace == "host" {
		return []string{"The driver could not allocate" + sizeNote(r.Requested) + " of pinned host memory, which backs transfers and host offload: transfer or offload less at once, or raise the memory the process may lock (container memory limit, ulimit -l).",
			"Check the host's free RAM: other processes, or data the program keeps in host memory (datasets, checkpoints), may hold it."}
	}
	return outsidePool("The driver could not allocate" + sizeNote(r.Requested) + " of unified (managed) memory, which is backed by device memory: free device memory first or keep less in managed memory.")
}

func constantAdvice(r *grammar.Report) []string {
	return outsidePool("The program's constants" + sizeNote(r.Requested) + " are copied to the device when it loads, outside XLA's buffer pool, and no memory was left: pass large arrays to jitted functions as arguments instead of closing over them (closed-over arrays become constants).")
}

func sizeNote(s grammar.Size) string {
	if !s.Known {
		return ""
	}
	return " (" + grammar.HumanSize(s) + ")"
}

// devicePrefix reads the "[N] " XlaFormatDevice puts before a message, so the expression starts at its anchor.
func devicePrefix(m grammar.Match) string {
	before, ok := strings.CutSuffix(m.Text[max(0, m.Start()-24):m.Start()], "] ")
	i := strings.LastIndexByte(before, '[') + 1
	if !ok || i == 0 || i == len(before) || logheader.DigitsEnd(before, i) != len(before) {
		return ""
	}
	return before[i:]
}

// raisedStatus reports whether a status match is what the program raised, not the end of an allocation's log
// line: an exception class stands right before it, or its sentence names no allocation.
func raisedStatus(_ *grammar.Report, m grammar.Match) bool {
	before := strings.TrimRight(m.Text[max(0, m.Loc[0]-statusSentenceSpan):m.Loc[0]], " ")
	word := before[strings.LastIndexAny(before, " \n\t")+1:]
	if strings.HasSuffix(word, "Error:") || strings.HasSuffix(word, "Exception:") {
		return true
	}
	if k := strings.LastIndex(before, ". "); k >= 0 {
		before = before[k:]
	}
	return !strings.Contains(before, "llocat")
}

// statusSentenceSpan bounds how far before a status its sentence is read.
const statusSentenceSpan = 160

func driverStatusAdvice(*grammar.Report) []string {
	return []string{"The GPU driver refused XLA's memory pool the memory it asked for, even after the pool backed off (the refused sizes come before this in the log: \"Failed to allocate device memory of …\"), and failed the program with its own status.",
		"Another process, or a library in this process (PyTorch, CuPy or TensorFlow allocating before JAX), holds part of this GPU, or XLA_PYTHON_CLIENT_MEM_FRACTION asks for more than is free: nvidia-smi --query-compute-apps=pid,used_memory --format=csv shows who.",
		anotherProcess}
}

func unifiedMemoryAction(r *grammar.Report) string {
	if r.MemorySpace == "host" {
		return grammar.ActionReduceHostMemory
	}
	return grammar.ActionReleaseBuffers
}
