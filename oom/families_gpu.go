// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// GPU families: the statuses XLA's allocators return (generic code E0007)
// and the log lines allocators and drivers print on the way, plus the GPU
// autotuner running out of memory while compiling.
// docs/message-formats.md lists them with their grammar and an example.

var gpuFamilies = []family{
	{
		id:      "gpu-allocator-status",
		summary: "XLA's device allocator (BFC via the TensorFlow adapter, or the pinned host allocator) returned out of memory.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime,
		anchor: "Out of ",
		expr: `Out of (?P<host>host )?memory while trying to allocate ` + sizeGroup("requested") +
			`(?: bytes)?\.?(?: with allocator (?P<allocator>[\w.\-]+) on device (?P<device>\d+))?`,
		read: func(r *Report, m match) bool {
			if m.group("host") != "" {
				r.MemorySpace = "host"
				r.Backend = BackendCPU
			}
			if a := m.group("allocator"); a != "" {
				// The allocator adapter that prints this clause serves
				// StreamExecutor (GPU) devices: GPU_0_bfc, gpu_async_0,
				// SE_0_space_0 (platform allocator).
				if r.Backend = allocatorBackend(a); r.Backend == "" {
					r.Backend = BackendGPU
				}
			}
			return true
		},
		cues:    []cue{{text: "allocate", sizeAfter: true}, {text: "BufferAssignment OOM"}},
		example: `XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 214748364800 bytes.`,
	},
	{
		id:      "gpu-platform-allocator",
		summary: "The platform allocator (allocating on demand) could not get the request from the device.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		// "re|quest for ": the anchor starts at a rare byte ("q"), which
		// strings.Index skips to at vector speed (see tpu-compile-hbm-used).
		anchor:  "quest for ",
		expr:    `[Ff]ailed to allocate request for ` + sizeGroup("requested") + `(?: \((?P<requested_exact>\d+)B\))?(?: on device ordinal (?P<device>\d+))?`,
		cues:    []cue{{text: "request for", sizeAfter: true}},
		example: `RuntimeError: Resource exhausted: Failed to allocate request for 32.00MiB (33554432B) on device ordinal 0`,
	},
	{
		id:      "gpu-bfc-allocator",
		summary: "The BFC allocator's warning that its pool has no block for the request (log line).",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime,
		anchor: "Allocator (",
		expr: `Allocator \((?P<allocator>[^)\s]+)\) ran out of memory trying to allocate ` + sizeGroup("requested") +
			`(?: \(rounded to (?P<requested_exact>\d+)\))?(?: ?requested by op \S*)?(?: from the \w+ end)?(?P<freed_by_count> with freed_by_count=\d+)?` +
			`(?P<not_failure>\. The caller indicates that this is not a failure)?`,
		read: func(r *Report, m match) bool {
			if m.group("freed_by_count") != "" || m.group("not_failure") != "" {
				return false // "with freed_by_count=N", or TF 1.1-1.13's "The caller indicates that this is not a failure": tolerated
			}
			a := m.group("allocator")
			r.Backend, r.Device = allocatorBackend(a), allocatorDevice(a)
			if strings.Contains(strings.ToLower(a), "host") {
				r.MemorySpace = "host"
			}
			return true
		},
		cues:    []cue{{text: "allocate", sizeAfter: true}},
		advice:  adviceTraits{suggestAsyncAllocator: true},
		example: `W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.50GiB (rounded to 4831838208)requested by op `,
	},
	{
		id:      "gpu-bfc-allocator-tf1",
		summary: "The BFC allocator's warning of TensorFlow 0.8-1.0 (no allocator name), printed after its memory dump (log line).",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor:  "See logs for memory state",
		expr:    `Ran out of memory trying to allocate ` + sizeGroup("requested") + `\. See logs for memory state`,
		cues:    []cue{{text: "allocate", sizeAfter: true}},
		advice:  adviceTraits{suggestAsyncAllocator: true},
		example: `W tensorflow/core/common_runtime/bfc_allocator.cc:268] Ran out of memory trying to allocate 1.00GiB.  See logs for memory state.`,
	},
	{
		// ROCm's driver wrapper returns its refusal as a status since 2026-07;
		// the same words on a log line of their own are an attempt
		// (gpu-driver-alloc-attempt).
		id:      "gpu-driver-alloc-status",
		summary: "The CUDA or ROCm driver refused a device allocation, returned as the failing status.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor: " from device: ",
		expr: `(?:RESOURCE_EXHAUSTED|Resource exhausted|INTERNAL|Internal): [Ff]ailed to allocate (?:` + sizeGroup("requested") + ` \((?P<requested_exact>\d+) bytes\)|(?P<requested_bytes>\d+) bytes) from device: ` +
			`(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|hipError_t\(1002\)|cudaErrorMemoryAllocation|out of memory)`,
		read: func(r *Report, m match) bool {
			if n := m.group("requested_bytes"); n != "" {
				r.Requested = parseSizeToken(n)
			}
			return true
		},
		cues:    []cue{{text: "allocate", sizeAfter: true}},
		example: `jax.errors.JaxRuntimeError: INTERNAL: failed to allocate 165425291480 bytes from device: hipErrorOutOfMemory`,
	},
	{
		id:      "gpu-stream-executor-limit",
		summary: "A StreamExecutor device allocation would pass the memory limit set for the device (log line; the allocation fails).",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime,
		anchor:  "Not enough memory to allocate ",
		expr:    `Not enough memory to allocate (?P<requested>\d+) on device (?P<device>\d+) within provided limit\. limit=(?P<pool_limit>\d+)`,
		cues:    []cue{{text: "memory to allocate"}},
		example: `W0822 14:03:11.512345  181818 stream_executor.h:442] Not enough memory to allocate 1073741824 on device 0 within provided limit. limit=4294967296]`,
	},
	{
		id:      "gpu-sycl-device-alloc",
		summary: "The SYCL (oneAPI) runtime could not allocate device memory (log line).",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor:  "DeviceAllocate: Failed to allocate device memory of size ",
		expr:    `DeviceAllocate: Failed to allocate device memory of size (?P<requested>\d+)`,
		example: `E0822 14:03:11.512345  181818 sycl_executor.cc:328] DeviceAllocate: Failed to allocate device memory of size 17179869184, got RESOURCE_EXHAUSTED: SyclMallocDevice: Failed to allocate device memory: out of device memory`,
	},
	{
		// The allocator has no retry of its own except its pool reservation
		// at start-up, which is an attempt (gpu-cuda-async-reservation-attempt):
		// the refusal of any other request is the request failing.
		id:      "gpu-cuda-async-allocator",
		summary: "The cudaMallocAsync allocator could not allocate a request (log line); CUDA's free/total figures often follow.",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor: "Async failed to allocate",
		expr:   asyncRefusalExpr,
		read: func(r *Report, m match) bool {
			r.Device = allocatorDevice(m.group("allocator"))
			var figures Report
			readCUDAFreeTotal(&figures, asyncFigures(m))
			return !asyncPoolReservation(r.Requested, figures.Capacity)
		},
		example: "E1103 18:23:55.103160 3413767 gpu_cudamallocasync_allocator.cc:361] gpu_async_0 cuMemAllocAsync failed to allocate 1073741824 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			" Reported by CUDA: Free memory/Total memory: 2147483648/85095874560",
	},
	{
		id:      "gpu-collective-memory",
		summary: "Collective memory (NCCL/RCCL user buffers, ROCm MORI) could not be allocated on the device.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor: "bytes) from ",
		expr:   `[Ff]ailed to allocate ` + sizeGroup("requested") + ` \((?P<requested_exact>\d+) bytes\) from (?:MORI memory|device collective memory)`,
		advice: adviceTraits{
			note:       "Collective buffers are allocated next to XLA's buffer pool: lower XLA_PYTHON_CLIENT_MEM_FRACTION to leave them room, or shrink the collectives (smaller per-step all-reduce/all-gather sizes).",
			noteAction: ActionSetMemoryLimit,
		},
		example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from MORI memory`,
	},
	{
		id:      "gpu-vmm-allocator",
		summary: "The VMM allocator (XLA_PYTHON_CLIENT_ALLOCATOR=vmm) had no physical-memory budget left for the allocation.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor: "Not enough PA budget: ",
		// pa_budget is the allocator's budget, not the GPU: the pool limit.
		expr:    `Not enough PA budget: pa_allocated=(?P<used>\d+)B, allocation_size=(?P<requested>\d+)B, pa_budget=(?P<pool_limit>\d+)B`,
		example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Not enough PA budget: pa_allocated=79456894976B, allocation_size=1073741824B, pa_budget=80000000000B`,
	},
	{
		id:      "gpu-jaxlib-workspace",
		summary: "A jaxlib GPU kernel (cuSOLVER/hipSOLVER, cuSPARSE) could not allocate its device workspace.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor:  "workspace for ",
		expr:    `Unable to allocate (?:device )?workspace for (?P<instruction>\w+)`,
		example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Unable to allocate device workspace for syevd`,
	},
}

// The GPU autotuner comes after every runtime family: its status wraps an
// example failure whose own message gives the sizes.
var gpuAutotunerFamilies = []family{
	{
		id:      "gpu-compile-autotuner",
		summary: "The GPU autotuner ran out of memory while compiling (seen in real JAX GPU captures).",
		kind:    fatal, code: codeGeneric, phase: PhaseCompile,
		anchor:  "Failed to get configs for",
		expr:    `(?:RESOURCE_EXHAUSTED|Resource exhausted): Failed to get configs for:? \d+ out of \d+ instructions`,
		example: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to get configs for: 3 out of 3 instructions. See logs for all failures. Example failure: ",
	},
}
