// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Memory-pressure warnings: memory is short while the program goes on; only RecognizeWarning reads them.
var warningFamilies = []grammar.WarningFamily{
	{
		ID:      "xla-compile-remat-shortfall",
		Summary: "Warning: XLA's rematerialization pass could not bring the program's peak memory under its limit (hlo_rematerialization.cc).",
		Kind:    grammar.WarningRematerialization,
		Phase:   grammar.PhaseCompile,
		Anchor:  " by rematerialization; only reduced to ",
		Expr: `Can.?t reduce memory use below ` + grammar.SizeGroup("capacity") + ` \((?P<capacity_exact>\d+) bytes\) by rematerialization; only reduced to ` +
			grammar.SizeGroup("used") + ` \((?P<used_exact>\d+) bytes\)`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			r.Capacity = grammar.Exact(m.Group("capacity"), m.Group("capacity_exact"))
			r.Used = grammar.Exact(m.Group("used"), m.Group("used_exact"))
			return r.Capacity.Known && r.Used.Known
		},
		Cues:    []logtext.Cue{{Text: "use below", SizeAfter: true}},
		Example: `W1122 10:52:37.476699     622 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally`,
	},
	{
		ID:      "gpu-runtime-bfc-retry",
		Summary: "Warning: the BFC allocator could not serve an allocation made without retry (with freed_by_count=N); its caller takes a slower path (bfc_allocator.cc).",
		Kind:    grammar.WarningAllocatorRetry,
		Phase:   grammar.PhaseRuntime,
		Anchor:  " with freed_by_count=",
		Expr: `Allocator \((?P<allocator>[^)\s]+)\) ran out of memory trying to allocate ` + grammar.SizeGroup("requested") +
			`(?: \(rounded to (?P<requested_exact>\d+)\))?(?: from the \w+ end)? with freed_by_count=\d+`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			a := m.Group("allocator")
			r.Backend, r.Device = grammar.AllocatorBackend(a), grammar.AllocatorDevice(a)
			return true
		},
		Cues:    []logtext.Cue{{Text: "allocate", SizeAfter: true}},
		Example: `W1122 10:54:45.359616    2494 bfc_allocator.cc:371] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.01MiB from the lower end with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.`,
	},
	{
		ID:      "gpu-compile-conv-autotune-fallback",
		Summary: "Warning: the cuDNN convolution autotuner ran out of memory and fell back to a default algorithm (conv_algorithm_picker.cc).",
		Kind:    grammar.WarningAutotuneFallback,
		Phase:   grammar.PhaseCompile, Backend: grammar.BackendGPU,
		Anchor:  "Failed to determine best cudnn convolution algorithm",
		Expr:    `Failed to determine best cudnn convolution algorithm` + autotuneMemoryStatus,
		Span:    autotuneSpan,
		Read:    readAutotuneFallback,
		Example: `W tensorflow/compiler/xla/service/gpu/gpu_conv_algorithm_picker.cc:729] Failed to determine best cudnn convolution algorithm: Resource exhausted: Out of memory while trying to allocate 16777716 bytes.`,
	},
	{
		ID:      "gpu-compile-gemm-autotune-fallback",
		Summary: "Warning: the cuBLAS GEMM autotuner ran out of memory and fell back to a default algorithm (gemm_algorithm_picker.cc).",
		Kind:    grammar.WarningAutotuneFallback,
		Phase:   grammar.PhaseCompile, Backend: grammar.BackendGPU,
		Anchor:  "Failed to find best cuBLAS algorithm",
		Expr:    `Failed to find best cuBLAS algorithm` + autotuneMemoryStatus,
		Span:    autotuneSpan,
		Read:    readAutotuneFallback,
		Example: `W0301 12:00:00.000000 4242 gemm_algorithm_picker.cc:162] Failed to find best cuBLAS algorithm, GEMM performance might be suboptimal: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 33554432 bytes.`,
	},
	{
		ID:      "gpu-runtime-cudnn-memory-usage",
		Summary: "Warning: cuDNN could not create its handle and printed the device's free and total memory (cuda_dnn.cc).",
		Kind:    grammar.WarningMemoryUsage,
		Phase:   grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: "Memory usage: ",
		Expr:   `Memory usage: (?P<free>\d+) bytes free, (?P<capacity>\d+) bytes total`,
		// The figures line has nothing the prefilter keys on: it passes with the record's handle failure.
		Cues:    []logtext.Cue{{Text: "INTERNAL_ERROR", Near: "Memory usage: "}},
		Example: "E0301 12:00:00.000000 4242 cuda_dnn.cc:449] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\nE0301 12:00:00.000000 4242 cuda_dnn.cc:453] Memory usage: 4194304 bytes free, 85031714816 bytes total.",
	},
}

// The GPU autotuners log a failure to pick an algorithm, then a status (after the HLO): a warning when it says
// memory ran out.
const (
	autotuneSpan         = 4096 // bounds the .*? below: the window ends this far past the anchor
	autotuneMemoryStatus = `(?P<between>.*?)(?:Out of memory while trying to allocate ` + `(?P<requested>` + grammar.SizePattern + `)` +
		`|Allocating (?P<scratch>\d+) bytes exceeds the memory limit of (?P<limit>\d+) bytes|CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory)`
)

// readAutotuneFallback reads the scratch request and limit; it rejects another fallback's status and the strict
// conv picker, whose same text fails the compile ("To ignore this failure ...").
func readAutotuneFallback(r *grammar.Report, m grammar.Match) bool {
	between := m.Group("between")
	if strings.Contains(between, "Failed to determine best") || strings.Contains(between, "Failed to find best") {
		return false
	}
	end := m.Loc[1]
	if strings.Contains(m.Text[end:min(len(m.Text), end+1024)], "To ignore this failure and try to use a fallback algorithm") {
		return false
	}
	if s := m.Group("scratch"); s != "" {
		r.Requested, r.Capacity = grammar.ParseSizeToken(s), grammar.ParseSizeToken(m.Group("limit"))
	}
	return true
}
