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
			`(?: \(rounded to (?P<requested_exact>\d+)\))?(?: ?requested by op \S*)?(?: from the \w+ end)?(?P<freed_by_count> with freed_by_count=\d+)?`,
		read: func(r *Report, m match) bool {
			if m.group("freed_by_count") != "" {
				return false // "with freed_by_count=N": the caller tolerates the failure
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
		id:      "gpu-driver-alloc",
		summary: "The CUDA or ROCm driver refused a device allocation (log line).",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor: "bytes) from device: ",
		expr: `[Ff]ailed to allocate ` + sizeGroup("requested") + ` \((?P<requested_exact>\d+) bytes\) from device: (?:RESOURCE_EXHAUSTED: :? ?)?` +
			`(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|hipError_t\(1002\)|cudaErrorMemoryAllocation|out of memory)`,
		cues:    []cue{{text: "allocate", sizeAfter: true}},
		example: `2024-06-24 17:01:13.933585: E external/xla/xla/stream_executor/rocm/rocm_driver.cc:1268] failed to allocate 154.06GiB (165425291480 bytes) from device: HIP_ERROR_OutOfMemory`,
	},
	{
		id:      "gpu-preallocation",
		summary: "XLA could not reserve its memory pool at start-up (log line); it retries with a smaller pool.",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor: "Failed to allocate device memory of",
		expr: `(?:\[(?P<device>\d+)\] )?Failed to allocate device memory of ` + sizeGroup("requested") + `(?: \((?P<requested_exact>\d+) bytes\))?: ` +
			`(?:RESOURCE_EXHAUSTED|Resource exhausted|CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory)`,
		cues: []cue{{text: "memory of", sizeAfter: true}},
		advice: adviceTraits{
			poolSetup: true,
			note:      "If this was logged while XLA set up its memory pool (preallocation at start-up), XLA falls back to a smaller pool and the program goes on: lower XLA_PYTHON_CLIENT_MEM_FRACTION (or set XLA_PYTHON_CLIENT_PREALLOCATE=false) to leave room for other users of the GPU.",
		},
		example: `E0914 08:00:01.000000 1 cuda_executor.cc:1182] [0] Failed to allocate device memory of 28.85GiB (30979129344 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY`,
	},
	{
		id:      "gpu-cuda-async-allocator",
		summary: "The cudaMallocAsync allocator could not allocate (log line); CUDA's free/total figures often follow.",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor: "Async failed to allocate",
		expr:   `(?:(?P<allocator>[\w.\-]+) )?cu(?:MemAlloc|daMalloc)Async failed to allocate (?P<requested>\d+)(?: bytes)?`,
		read: func(r *Report, m match) bool {
			r.Device = allocatorDevice(m.group("allocator"))
			return true
		},
		example: "E1103 18:23:55.103160 3413767 gpu_cudamallocasync_allocator.cc:361] gpu_async_0 cuMemAllocAsync failed to allocate 1073741824 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			" Reported by CUDA: Free memory/Total memory: 2147483648/85095874560",
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
