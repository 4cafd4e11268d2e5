// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"math"
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Allocation attempts: the driver refused an allocator, which recovers from most on its own (BFC retries at
// 0.9 of the size): memory pressure, never a failure (docs/message-formats.md, "Attempts and failures").
var attemptFamilies = []grammar.WarningFamily{
	executorAttempt("device", `E1126 11:16:21.043170     523 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`),
	executorAttempt("host", `E0822 14:03:11.512345  181818 cuda_executor.cc:1349] [0] Failed to allocate host memory of 2.00GiB (2147483648 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`),
	executorAttempt("collective", `E0822 14:03:11.512345  181818 cuda_executor.cc:1349] [1] Failed to allocate collective memory of 512.00MiB (536870912 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`),
	{
		// StreamExecutor's CUDA/ROCm driver wrappers; ROCm's status form (2026-07) is gpu-driver-alloc-status.
		ID:      "gpu-driver-alloc-attempt",
		Summary: "Attempt: the CUDA or ROCm driver refused a device allocation (log line, any level); the allocator retries with less or the request fails with a status.",
		Kind:    grammar.WarningAllocationAttempt, Attempt: true, Raised: "gpu-driver-alloc-status",
		Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: " from device: ",
		Expr: `[Ff]ailed to allocate (?:` + grammar.SizeGroup("requested") + ` \((?P<requested_exact>\d+) bytes\)|(?P<requested_bytes>\d+) bytes) from device: (?:RESOURCE_EXHAUSTED: :? ?)?` +
			`(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|hipError_t\(1002\)|cudaErrorMemoryAllocation|out of memory)`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			if statusBefore(m) {
				return false // a returned status: gpu-driver-alloc-status
			}
			return readRequestedBytes(r, m)
		},
		Cues:    []logtext.Cue{{Text: "allocate", SizeAfter: true}},
		Example: `2024-06-24 17:01:13.933585: E external/xla/xla/stream_executor/rocm/rocm_driver.cc:1268] failed to allocate 154.06GiB (165425291480 bytes) from device: HIP_ERROR_OutOfMemory`,
	},
	{
		ID:      "gpu-allocator-region-attempt",
		Summary: "Attempt: XLA's StreamExecutor allocator could not get a new region of device, unified, pinned host or collective memory (log line); it may retry smaller.",
		Kind:    grammar.WarningAllocationAttempt, Attempt: true,
		Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor:  "could not allocate ",
		Expr:    `could not allocate (?P<kind>device|unified|pinned host|collective)(?: memory)? of size: (?P<requested>\d+)`,
		Example: `W0822 14:03:11.512345  181818 stream_executor_allocator.cc:68] could not allocate pinned host of size: 68719476736 (RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory)`,
	},
	{
		// The pool's start-up reservation (device total times the memory fraction) is refused and the allocator
		// runs on without it; any other refusal is the failure family gpu-cuda-async-allocator.
		ID:      "gpu-cuda-async-reservation-attempt",
		Summary: "Attempt: CUDA refused the cudaMallocAsync allocator's pool reservation at start-up (log line; the allocator runs on without it).",
		Kind:    grammar.WarningAllocationAttempt, Attempt: true, Raised: "gpu-cuda-async-allocator",
		Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: "Async failed to allocate",
		Expr:   asyncRefusalExpr,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			r.Device = grammar.AllocatorDevice(m.Group("allocator"))
			readCUDAFreeTotal(r, m)
			return asyncPoolReservation(r.Requested, r.Capacity)
		},
		Example: "E1126 11:17:57.846859    2708 gpu_cudamallocasync_allocator.cc:366] gpu_async_0 cuMemAllocAsync failed to allocate 63763120128 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			" Reported by CUDA: Free memory/Total memory: 19529728/85017493504",
	},
}

// executorAttempt is StreamExecutor's refused allocation of one memory kind: one entry per kind, one anchor each.
func executorAttempt(kind, example string) grammar.WarningFamily {
	w := grammar.WarningFamily{
		ID:      "gpu-executor-" + kind + "-alloc-attempt",
		Summary: "Attempt: StreamExecutor was refused " + kind + " memory by the driver (log line, at ERROR); XLA's pool set-up and growth retry at 0.9 of the size, other callers fail with a status.",
		Kind:    grammar.WarningAllocationAttempt, Attempt: true,
		Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: "Failed to allocate " + kind + " memory",
		Expr: `(?:\[(?P<device>\d+)\] )?Failed to allocate ` + kind + ` memory(?: of ` + grammar.SizeGroup("requested") + `(?: \((?P<requested_exact>\d+) bytes\))?)?: ` +
			`(?:RESOURCE_EXHAUSTED|Resource exhausted|INTERNAL|CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory)`,
		Example: example,
	}
	if kind == "device" {
		w.Cues = []logtext.Cue{{Text: "memory of", SizeAfter: true}}
	}
	return w
}

// asyncRefusalExpr is a refused cuMemAllocAsync (or older cudaMallocAsync).
const asyncRefusalExpr = `(?:(?P<allocator>[\w.\-]+) )?cu(?:MemAlloc|daMalloc)Async failed to allocate (?P<requested>\d+)(?: bytes)?`

// cudaFiguresSpan bounds where CUDA's "Free memory/Total memory: F/T" is looked for after a refusal: past the
// Source Location Trace block 2026 builds print between them.
const cudaFiguresSpan = 512

// asyncPoolReservation reports whether a cudaMallocAsync refusal is the pool's reservation: the device total
// times a fraction of at most three decimals, to the byte (another size lands there about once in 10^7).
func asyncPoolReservation(requested, total grammar.Size) bool {
	t := total.Bytes
	if !total.Known || !requested.Known || t <= 0 || requested.Bytes <= 0 || requested.Bytes > t || requested.Bytes > math.MaxInt64/1000 {
		return false
	}
	rest := requested.Bytes * 1000 % t
	return rest <= 1000 || t-rest <= 1000
}

// readCUDAFreeTotal reads CUDA's "Free memory/Total memory: F/T" after a refusal m into r.
func readCUDAFreeTotal(r *grammar.Report, m grammar.Match) {
	after := m.Text[m.Loc[1]:min(len(m.Text), m.Loc[1]+cudaFiguresSpan)]
	const label = "Free memory/Total memory: "
	if i := strings.Index(after, label); i >= 0 {
		if free, total, ok := details.CUDAFreeTotal(after[i+len(label):]); ok {
			r.Free, r.Capacity = grammar.ParseSizeToken(free), grammar.ParseSizeToken(total)
		}
	}
}

// statusBefore reports whether the match is a returned status's message ("INTERNAL: <match>").
func statusBefore(m grammar.Match) bool {
	before := strings.TrimRight(m.Text[max(0, m.Loc[0]-len("RESOURCE_EXHAUSTED: ")-1):m.Loc[0]], " ")
	return slices.ContainsFunc(driverStatusPrefixes, func(s string) bool { return strings.HasSuffix(before, s) })
}

// readRequestedBytes reads a driver refusal's bare "N bytes" size.
func readRequestedBytes(r *grammar.Report, m grammar.Match) bool {
	if n := m.Group("requested_bytes"); n != "" {
		r.Requested = grammar.ParseSizeToken(n)
	}
	return true
}

// driverStatusPrefixes: ROCm's wrapper returns INTERNAL as well.
var driverStatusPrefixes = []string{"RESOURCE_EXHAUSTED:", "Resource exhausted:", "INTERNAL:", "Internal:"}
