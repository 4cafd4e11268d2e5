// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"strings"

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
