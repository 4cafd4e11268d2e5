// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

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
	if !ok || i == 0 || i == len(before) || logtext.DigitsEnd(before, i) != len(before) {
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
