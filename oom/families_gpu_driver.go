// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// GPU driver families: the CUDA or ROCm driver itself ran out of device
// memory outside XLA's buffer pool, while StreamExecutor launched a kernel,
// loaded a compiled module, created the device context, allocated unified
// or pinned host memory, or copied a program's constants. XLA reports these
// under INTERNAL (older builds), UNKNOWN, RESOURCE_EXHAUSTED or no status at
// all; the driver's out-of-memory error name is what makes them OOMs, so
// every expression ends in it. A failure that names another driver error is
// not an OOM. Sources: xla/stream_executor/cuda/cuda_driver.cc,
// cuda_executor.cc, cuda_stream.cc, cuda_unified_allocator.cc,
// cuda_host_allocator.cc and their rocm/ counterparts (2022-2026).

// driverOutOfMemory is the driver's out-of-memory error as StreamExecutor
// prints it: CUDA's name (with or without ": out of memory" after it),
// ROCm's name, and the number older ROCm builds print for
// hipErrorMemoryAllocation.
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

var gpuDriverFamilies = []family{
	{
		// A real job (testdata/jobs/two_jobs_second.log) whose pool set-up
		// backed off eleven times beside another job raised the driver's
		// status itself: "RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out
		// of memory [executable_name='…']". The same words end every
		// allocation attempt's log line, so only the raised status counts:
		// the text alone (str(e)) or behind an exception class.
		id:      "gpu-driver-status",
		summary: "The driver's own out-of-memory status, raised with no message of XLA's: XLA's memory pool could not be set up or grown, usually because another process or library holds the GPU.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryPoolSetup,
		anchor: "RESOURCE_EXHAUSTED: : ",
		expr:   `RESOURCE_EXHAUSTED: : ` + driverOutOfMemory,
		read: func(_ *Report, m match) bool {
			return raisedStatus(m)
		},
		advice:  adviceTraits{own: driverStatusAdvice, ownAction: constAction(ActionFreeHeldMemory)},
		example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory [executable_name='jit_broadcast_in_dim']`,
	},
	{
		id:      "gpu-driver-kernel-launch",
		summary: "The driver had no device memory left to launch a kernel (its local memory and launch resources live outside XLA's pool).",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryKernelLaunch,
		anchor: "Failed to launch ",
		expr: `Failed to launch (?:CUDA|ROCm) kernel: (?P<instruction>[^\s;:]+)` +
			`(?: with block dimensions: [\dx]+(?: and grid dimensions: [\dx]+)?)?(?:; [\w ]+: [\dx]+)*: ` + driverOutOfMemory,
		advice:  adviceTraits{own: kernelLaunchAdvice, ownAction: constAction(ActionSetMemoryLimit)},
		example: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch CUDA kernel: fusion_12 with block dimensions: 128x1x1 and grid dimensions: 2048x1x1: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
	{
		id:      "gpu-driver-module-load",
		summary: "The driver had no device memory left to load a compiled module (CUBIN, PTX or HSACO).",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryModuleLoad,
		anchor: "Failed to load ",
		expr: `Failed to load (?:in-memory CUBIN(?: \(compiled for a different GPU\?\)\.)?|PTX text as a module|HSACO):(?: :)? ` +
			driverOutOfMemory,
		read: func(r *Report, m match) bool {
			r.Device = devicePrefix(m)
			return true
		},
		advice:  adviceTraits{own: moduleLoadAdvice, ownAction: constAction(ActionSetMemoryLimit)},
		example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: [0] Failed to load in-memory CUBIN (compiled for a different GPU?).: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
	{
		id:      "gpu-driver-context-init",
		summary: "The driver had no device memory left to create the process's context at start-up: another process holds the GPU.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryContextInit,
		anchor: "DevicePrimaryCtxRetain: ",
		expr:   `failed call to (?:cu|hip)DevicePrimaryCtxRetain: ` + driverOutOfMemory + `(?:: out of memory)?(?:; total memory reported: (?P<capacity>\d+))?`,
		read: func(r *Report, m match) bool {
			// The total ends the message: read it even at the very end of the
			// text, where the standard group leaves a bare number unset as
			// possibly cut (a device's total is never printed shortened).
			r.Capacity = parseSizeToken(m.group("capacity"))
			return true
		},
		advice:  adviceTraits{own: contextInitAdvice, ownAction: constAction(ActionFreeHeldMemory)},
		example: `E0413 10:22:33.123456 1234 cuda_driver.cc:268] failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 34089730048`,
	},
	{
		id:      "gpu-driver-unified-memory",
		summary: "The driver could not allocate unified (managed) or pinned host memory for XLA.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryUnified,
		anchor: "Failed to allocate ",
		expr: `Failed to allocate ` + sizeGroup("requested") + ` \((?P<requested_exact>\d+) bytes\) of ` +
			`(?:(?P<kind>unified|pinned host) memory:(?: :)? ` + driverOutOfMemory + `|host memory pinned to NUMA node \d+)`,
		read: func(r *Report, m match) bool {
			if m.group("kind") != "unified" {
				r.MemorySpace = "host"
			}
			r.Device = devicePrefix(m)
			return true
		},
		advice:  adviceTraits{own: unifiedMemoryAdvice, ownAction: unifiedMemoryAction},
		example: `INTERNAL: [0] Failed to allocate 2.00GiB (2147483648 bytes) of unified memory: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
	{
		id:      "gpu-driver-unified-memory-log",
		summary: "The driver could not allocate unified (managed) or pinned host memory (log line of older builds).",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryUnified,
		anchor: "failed to alloc ",
		expr:   `failed to alloc (?P<requested>\d+) bytes (?:unified memory; result:|(?P<host>on host):) ` + driverOutOfMemory,
		read: func(r *Report, m match) bool {
			if m.group("host") != "" {
				r.MemorySpace = "host"
			}
			return true
		},
		advice:  adviceTraits{own: unifiedMemoryAdvice, ownAction: unifiedMemoryAction},
		example: `E0101 09:00:00.000000 4242 cuda_driver.cc:1231] failed to alloc 2147483648 bytes unified memory; result: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
	{
		id:      "gpu-runtime-constant-allocation",
		summary: "The device had no memory left for the compiled program's constants, copied outside XLA's pool when it loads.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryConstant,
		anchor: "Failed to allocate ",
		expr:   `Failed to allocate (?P<requested>\d+) bytes for new constant`,
		// No cue of its own: the last-resort layer's "ailed to allocate"
		// (genericCues) lets it through, bare or behind any status.
		advice:  adviceTraits{own: constantAdvice, ownAction: constAction(ActionShrinkFootprint)},
		example: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to allocate 1048576 bytes for new constant`,
	},
	{
		// xla/stream_executor/gpu/gpu_command_buffer.cc (2025+): instantiating
		// the CUDA graph of a command buffer needs driver memory outside XLA's
		// pool; the driver's own error follows "Original error:".
		id:      "gpu-runtime-command-buffer",
		summary: "The driver had no memory left to instantiate a command buffer (CUDA graph) of the compiled program.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryGraph,
		anchor: "ran out of memory trying to instantiate command buffer",
		expr: `Underlying backend ran out of memory trying to instantiate command buffer with \d+` +
			`(?: \(total of \d+ alive graphs in the process\))?`,
		advice:  adviceTraits{own: commandBufferAdvice, ownAction: constAction(ActionSetMemoryLimit)},
		example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Underlying backend ran out of memory trying to instantiate command buffer with 37 (total of 2 alive graphs in the process). You can try to (a) Give more memory to the driver by reducing XLA_CLIENT_MEM_FRACTION (b) Disable command buffers with 'XLA_FLAGS=--xla_gpu_enable_command_buffer=' (empty set). Original error: Failed to instantiate CUDA graph: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	},
}

// roomForTheDriver is the step every driver-level failure shares: XLA's
// pool leaves the driver the rest of the GPU, so give XLA less, not more.
const roomForTheDriver = "XLA preallocates 75% of the GPU for its buffer pool; the driver needs the rest for contexts, loaded modules and kernel resources. " +
	"Leave it more room: lower XLA_PYTHON_CLIENT_MEM_FRACTION (e.g. .70 or .60), or set XLA_PYTHON_CLIENT_PREALLOCATE=false so XLA allocates on demand."

// anotherProcess is the step that looks for other users of the GPU.
const anotherProcess = "Check with nvidia-smi (rocm-smi on AMD) whether another process holds memory on the same GPU; give each process its own GPU (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES) or cap every process's XLA_PYTHON_CLIENT_MEM_FRACTION so they fit together."

func kernelLaunchAdvice(r *Report) []string {
	var a advice
	k := "a kernel"
	if r.Instruction != "" {
		k = "kernel " + r.Instruction
	}
	a.add("The GPU driver could not get memory to launch ", k, ": its local memory, stack and launch resources are allocated outside XLA's buffer pool, and the pool left none.")
	a.add(roomForTheDriver)
	a.add(anotherProcess)
	a.add("If the kernel is a custom one (Pallas, Triton, a custom call) with a large per-thread stack or many threads, a smaller block size needs less.")
	return a
}

func commandBufferAdvice(*Report) []string {
	var a advice
	a.add("XLA runs parts of the program as CUDA graphs (command buffers); instantiating one needs driver memory outside XLA's buffer pool, and none was left.")
	a.add(roomForTheDriver)
	a.add("Or turn command buffers off (slower launches, no graph memory): XLA_FLAGS=--xla_gpu_enable_command_buffer= (an empty list).")
	a.add(anotherProcess)
	return a
}

func moduleLoadAdvice(*Report) []string {
	var a advice
	a.add("Loading the compiled GPU code (CUBIN, PTX or HSACO) needs device memory outside XLA's buffer pool, and none was left.")
	a.add(roomForTheDriver)
	a.add(anotherProcess)
	a.add("Every distinct compiled program keeps its modules loaded: compile fewer variants (fixed input shapes, fewer static arguments) in long-running processes.")
	return a
}

func contextInitAdvice(r *Report) []string {
	var a advice
	s := "The GPU had no memory left to create this process's driver context (a few hundred MiB)"
	if r.Capacity.Known {
		s += " although it has " + humanSize(r.Capacity) + " in total"
	}
	a.add(s, ": another process holds the GPU. ", anotherProcess)
	a.add("Several JAX processes on one GPU each preallocate 75% of it by default: run one process per GPU, or set XLA_PYTHON_CLIENT_PREALLOCATE=false (or a smaller XLA_PYTHON_CLIENT_MEM_FRACTION) in every one of them.")
	a.add("If another framework or a second client in this same process started first and preallocated (XLA's preallocation included), it left no room for this context: start this one first, or lower the first one's share.")
	return a
}

func unifiedMemoryAdvice(r *Report) []string {
	var a advice
	if r.MemorySpace == "host" {
		a.add("The driver could not allocate", sizeNote(r.Requested), " of pinned host memory, which backs transfers and host offload: transfer or offload less at once, or raise the memory the process may lock (container memory limit, ulimit -l).")
		a.add("Check the host's free RAM: other processes, or data the program keeps in host memory (datasets, checkpoints), may hold it.")
		return a
	}
	a.add("The driver could not allocate", sizeNote(r.Requested), " of unified (managed) memory, which is backed by device memory: free device memory first or keep less in managed memory.")
	a.add(roomForTheDriver)
	a.add(anotherProcess)
	return a
}

func constantAdvice(r *Report) []string {
	var a advice
	a.add("The program's constants", sizeNote(r.Requested), " are copied to the device when it loads, outside XLA's buffer pool, and no memory was left: pass large arrays to jitted functions as arguments instead of closing over them (closed-over arrays become constants).")
	a.add(roomForTheDriver)
	a.add(anotherProcess)
	return a
}

// sizeNote is " (X)" when the size is known.
func sizeNote(s Size) string {
	if !s.Known {
		return ""
	}
	return " (" + humanSize(s) + ")"
}

// devicePrefix reads the "[N] " that XlaFormatDevice puts before a message
// (read here rather than in the expression, which then starts at its anchor).
func devicePrefix(m match) string {
	before := m.text[max(0, m.start()-24):m.start()]
	if !strings.HasSuffix(before, "] ") {
		return ""
	}
	before = before[:len(before)-2]
	i := len(before)
	for i > 0 && isDigit(before[i-1]) {
		i--
	}
	if i == len(before) || i == 0 || before[i-1] != '[' {
		return ""
	}
	return before[i:]
}

// raisedStatus reports whether a status match is what the program raised,
// not the status that ends an allocation's log line ("Failed to allocate
// device memory of S (N bytes): RESOURCE_EXHAUSTED: : …", "… with VMM: …",
// "could not allocate … (RESOURCE_EXHAUSTED: : …)"): an exception class
// stands right before it, or no allocation is named in its sentence (the
// message printed alone, behind an application's words).
func raisedStatus(m match) bool {
	before := strings.TrimRight(m.text[max(0, m.loc[0]-statusSentenceSpan):m.loc[0]], " ")
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

func driverStatusAdvice(*Report) []string {
	var a advice
	a.add("The GPU driver refused XLA's memory pool the memory it asked for, even after the pool backed off (the refused sizes come before this in the log: \"Failed to allocate device memory of …\"), and failed the program with its own status.")
	a.add("Another process, or a library in this process (PyTorch, CuPy or TensorFlow allocating before JAX), holds part of this GPU, or XLA_PYTHON_CLIENT_MEM_FRACTION asks for more than is free: nvidia-smi --query-compute-apps=pid,used_memory --format=csv shows who.")
	a.add(anotherProcess)
	return a
}
