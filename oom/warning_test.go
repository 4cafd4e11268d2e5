// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// warningFixture is one memory-pressure warning. src says where the text
// comes from: a real capture (oom/testdata/real), an issue
// quoted in the format reference, or the XLA source template the line is
// printed from ("template": the format string filled with plausible figures,
// used only where no real capture of the line is at hand).
type warningFixture struct {
	name, src, text string
	want            grammar.Warning // Family is the entry of families/families_warnings.go; Explanation is checked against Explanation(kind)
	pressure        float64         // 0: none expected
}

var warningFixtures = []warningFixture{
	{name: "remat real H100", src: "real capture testdata/real/jit_temps.stderr.txt:14 (jax 0.11.2)",
		text:     `W1122 10:52:37.476699     622 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally`,
		want:     grammar.Warning{Kind: grammar.WarningRematerialization, Family: "xla-compile-remat-shortfall", Phase: grammar.PhaseCompile, Capacity: b(60574761232), Used: b(75003125004)},
		pressure: 75003125004.0 / 60574761232.0},
	{name: "remat old form", src: "reference §2.1 (hlo_rematerialization.cc before 'down from' was added); figures of the real line above",
		text:     `W0905 17:27:21 hlo_rematerialization.cc:3231] Can't reduce memory use below 57.03GiB (61237292825 bytes) by rematerialization; only reduced to 68.32GiB (73361280968 bytes)`,
		want:     grammar.Warning{Kind: grammar.WarningRematerialization, Family: "xla-compile-remat-shortfall", Phase: grammar.PhaseCompile, Capacity: b(61237292825), Used: b(73361280968)},
		pressure: 73361280968.0 / 61237292825.0},
	{name: "bfc freed_by_count real H100", src: "real capture testdata/real/autotune_starved.stderr.txt:14 (jax 0.11.2)",
		text: `W1122 10:54:45.359616    2494 bfc_allocator.cc:371] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.01MiB from the lower end with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.`,
		want: grammar.Warning{Kind: grammar.WarningAllocatorRetry, Family: "gpu-runtime-bfc-retry", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "0", Requested: grammar.ParseSizeToken("16.01MiB")}},
	{name: "bfc freed_by_count TSL header", src: "reference §2.1 (L), TSL bfc_allocator.cc",
		text: `2024-01-01 00:00:00.000000: W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.16GiB with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.`,
		want: grammar.Warning{Kind: grammar.WarningAllocatorRetry, Family: "gpu-runtime-bfc-retry", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "0", Requested: grammar.ParseSizeToken("2.16GiB")}},
	{name: "bfc freed_by_count old TF", src: "reference §2.1 (L), old TF wording 'but may mean'",
		text: `W tensorflow/core/common_runtime/bfc_allocator.cc:243] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.16GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.`,
		want: grammar.Warning{Kind: grammar.WarningAllocatorRetry, Family: "gpu-runtime-bfc-retry", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "0", Requested: grammar.ParseSizeToken("2.16GiB")}},
	{name: "bfc freed_by_count no hint", src: "template: bfc_allocator.cc, an allocation without retry whose caller did not mark it optional",
		text: `W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_1_bfc) ran out of memory trying to allocate 2.16GiB from the upper end with freed_by_count=3.`,
		want: grammar.Warning{Kind: grammar.WarningAllocatorRetry, Family: "gpu-runtime-bfc-retry", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "1", Requested: grammar.ParseSizeToken("2.16GiB")}},
	{name: "driver attempt at INFO, glog", src: "template: cuda_driver.cc LOG(INFO) 'failed to allocate %s (%d bytes) from device: %s'; figures of jax#788",
		text: `I0413 10:22:33.123456 1234 cuda_driver.cc:802] failed to allocate 528.00M (553648128 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-driver-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Requested: b(553648128), Attempts: 1}},
	{name: "driver attempt at INFO, TF header", src: "template: tensorflow/stream_executor/cuda/cuda_driver.cc LOG(INFO), TSL header",
		text: `2019-03-08 10:41:02.356212: I tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 3.77G (4046333952 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-driver-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Requested: b(4046333952), Attempts: 1}},
	{name: "cudnn autotune fallback", src: "https://github.com/pytorch/xla/issues/3162 (reference §2.1)",
		text: `W tensorflow/compiler/xla/service/gpu/gpu_conv_algorithm_picker.cc:729] Failed to determine best cudnn convolution algorithm: Resource exhausted: Out of memory while trying to allocate 16777716 bytes.`,
		want: grammar.Warning{Kind: grammar.WarningAutotuneFallback, Family: "gpu-compile-conv-autotune-fallback", Phase: grammar.PhaseCompile, Backend: grammar.BackendGPU, Requested: b(16777716)}},
	{name: "cudnn autotune fallback with HLO", src: "template: conv_algorithm_picker.cc 'Failed to determine best cudnn convolution algorithm for:\\n%s\\n\\nOriginal error: %s' + '\\n\\nAs a result, convolution performance may be suboptimal.'",
		text:     "W0301 12:00:00.000000 4242 conv_algorithm_picker.cc:1088] Failed to determine best cudnn convolution algorithm for:\n%cudnn-conv = (f32[8,64,56,56]{3,2,1,0}, u8[0]{0}) custom-call(f32[8,64,56,56]{3,2,1,0} %p0, f32[64,64,3,3]{3,2,1,0} %p1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, custom_call_target=\"__cudnn$convForward\"\n\nOriginal error: RESOURCE_EXHAUSTED: Allocating 4294967296 bytes exceeds the memory limit of 2147483648 bytes.\n\nAs a result, convolution performance may be suboptimal.",
		want:     grammar.Warning{Kind: grammar.WarningAutotuneFallback, Family: "gpu-compile-conv-autotune-fallback", Phase: grammar.PhaseCompile, Backend: grammar.BackendGPU, Requested: b(4294967296), Capacity: b(2147483648)},
		pressure: 2},
	{name: "cublas autotune fallback", src: "template: gemm_algorithm_picker.cc 'Failed to find best cuBLAS algorithm, GEMM performance might be suboptimal: ' << status",
		text: `W0301 12:00:00.000000 4242 gemm_algorithm_picker.cc:162] Failed to find best cuBLAS algorithm, GEMM performance might be suboptimal: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 33554432 bytes.`,
		want: grammar.Warning{Kind: grammar.WarningAutotuneFallback, Family: "gpu-compile-gemm-autotune-fallback", Phase: grammar.PhaseCompile, Backend: grammar.BackendGPU, Requested: b(33554432)}},
	{name: "cudnn handle memory usage", src: "template: cuda_dnn.cc 'Could not create cudnn handle: ' + 'Memory usage: %d bytes free, %d bytes total.', one record",
		text:     "E0301 12:00:00.000000 4242 cuda_dnn.cc:449] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\nE0301 12:00:00.000000 4242 cuda_dnn.cc:453] Memory usage: 4194304 bytes free, 85031714816 bytes total.",
		want:     grammar.Warning{Kind: grammar.WarningMemoryUsage, Family: "gpu-runtime-cudnn-memory-usage", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Free: b(4194304), Capacity: b(85031714816)},
		pressure: float64(85031714816-4194304) / 85031714816},
	// Allocation attempts (families/families_attempts.go): the driver's refusals that
	// allocators retry; a warning alone, counted in a failure's record.
	{name: "attempt: pool set-up back-off, real H100", src: "real job log testdata/jobs/shared_gpu_backoff_exit0.log:3 (jax 0.11.2, another process held 58 GiB)",
		text: `E1126 11:16:21.043170     523 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-executor-device-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "0", Requested: b(63763906560), Attempts: 1}},
	{name: "attempt: back-off series in one record", src: "real job log testdata/jobs/shared_gpu_backoff_exit0.log, first and last of the series joined without their trace blocks",
		text: "E1126 11:16:21.043170     523 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			"E1126 11:16:21.043592     523 cuda_executor.cc:1365] [0] Failed to allocate device memory of 53.45GiB (57387515904 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			"E1126 11:16:21.046744     523 cuda_executor.cc:1365] [0] Failed to allocate device memory of 20.71GiB (22233092096 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-executor-device-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "0", Requested: b(63763906560), Last: b(22233092096), Attempts: 3}},
	{name: "attempt: preallocation, device prefix", src: "docs/message-formats.md (public notes)",
		text: `E0914 08:00:01.000000 1 cuda_executor.cc:1182] [0] Failed to allocate device memory of 28.85GiB (30979129344 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-executor-device-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "0", Requested: b(30979129344), Attempts: 1}},
	{name: "attempt: preallocation without exact bytes", src: "docs/message-formats.md (public notes)",
		text: `E0914 cuda_executor.cc:1182] Failed to allocate device memory of 1.00GiB: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-executor-device-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Requested: b(1073741824), Attempts: 1}},
	{name: "attempt: host memory", src: "xla/stream_executor/cuda/cuda_executor.cc template (coverage table)",
		text: `E0822 14:03:11.512345  181818 cuda_executor.cc:1349] [0] Failed to allocate host memory of 2.00GiB (2147483648 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-executor-host-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "0", Requested: b(2147483648), Attempts: 1}},
	{name: "attempt: collective memory", src: "xla/stream_executor/cuda/cuda_executor.cc template (coverage table)",
		text: `E0822 14:03:11.512345  181818 cuda_executor.cc:1349] [1] Failed to allocate collective memory of 512.00MiB (536870912 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-executor-collective-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "1", Requested: b(536870912), Attempts: 1}},
	{name: "attempt: old TF driver line at ERROR", src: "https://github.com/jax-ml/jax/issues/788",
		text: `E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate 528.00M (553648128 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-driver-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Requested: b(553648128), Attempts: 1}},
	{name: "attempt: ROCm driver line", src: "https://github.com/ROCm/legacy-rocm-build/issues/3364",
		text: `2024-06-24 17:01:13.933585: E external/xla/xla/stream_executor/rocm/rocm_driver.cc:1268] failed to allocate 154.06GiB (165425291480 bytes) from device: HIP_ERROR_OutOfMemory`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-driver-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Requested: b(165425291480), Attempts: 1}},
	{name: "attempt: pinned host region", src: "xla/stream_executor/integrations/stream_executor_allocator.cc template (coverage table)",
		text: `W0822 14:03:11.512345  181818 stream_executor_allocator.cc:68] could not allocate pinned host of size: 68719476736 (RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory)`,
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-allocator-region-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Requested: b(68719476736), Attempts: 1}},
	{name: "attempt: cudaMallocAsync pool reservation, real H100", src: "real job log testdata/jobs/cuda_async_near_full_oom.log (the job ran on; 0.75 of the GPU's total)",
		text: "E1126 11:17:57.846859    2708 gpu_cudamallocasync_allocator.cc:366] gpu_async_0 cuMemAllocAsync failed to allocate 63763120128 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			" Reported by CUDA: Free memory/Total memory: 19529728/85017493504",
		want: grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-cuda-async-reservation-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Device: "0",
			Requested: b(63763120128), Free: b(19529728), Capacity: b(85017493504), Attempts: 1},
		pressure: 0.75},
}

func TestWarningFixtures(t *testing.T) {
	for _, f := range warningFixtures {
		t.Run(f.name, func(t *testing.T) {
			if !MayContain(f.text) {
				t.Error("MayContain = false")
			}
			if r, ok := Recognize(f.text); ok {
				t.Fatalf("a warning recognised as an OOM: %s/%s", r.Code, r.Family)
			}
			w, ok := RecognizeWarning(f.text)
			if !ok {
				t.Fatal("warning not recognised")
			}
			want := f.want
			want.Explanation = grammar.Explanation(want.Kind)
			if want.Explanation == "" {
				t.Fatalf("kind %q has no explanation", want.Kind)
			}
			if w != want {
				t.Errorf("got  %+v\nwant %+v", w, want)
			}
			p, ok := w.Pressure()
			if ok != (f.pressure != 0) || ok && !nearlyEqual(p, f.pressure) {
				t.Errorf("pressure = %v, %v; want %v", p, ok, f.pressure)
			}
		})
	}
}

func nearlyEqual(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// Fatal forms of the same lines stay OOMs, and records that only look like
// warnings are neither.
func TestWarningLookalikes(t *testing.T) {
	for _, c := range []struct {
		name, text string
		oom        bool // Recognize must take it (the fatal form)
	}{
		{"bfc headline without freed_by_count", `W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.50GiB (rounded to 4831838208)requested by op `, true},
		{"autotuning that fails the compile", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to get configs for: 3 out of 3 instructions. See logs for all failures. Example failure: Out of memory while trying to allocate 32.00MiB with allocator GPU_0_bfc on device 0.`, true},
		{"strict conv picker", "UNKNOWN: Failed to determine best cudnn convolution algorithm for:\n%cudnn-conv = f32[1]{0} custom-call()\n\nOriginal error: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 16777716 bytes.\n\nTo ignore this failure and try to use a fallback algorithm (which may have suboptimal performance), use XLA_FLAGS=--xla_gpu_strict_conv_algorithm_picker=false.  Please also file a bug for the root cause of failing autotuning.", false},
		{"conv picker failure not about memory", `W0301 12:00:00.000000 4242 conv_algorithm_picker.cc:1088] Failed to determine best cudnn convolution algorithm: INTERNAL: All algorithms tried for %cudnn-conv failed. Falling back to default algorithm.`, false},
		{"bfc stats", "Stats: \nLimit:                 10.51GiB\nInUse:                  9.09GiB\nMaxInUse:              10.12GiB", false},
		{"bfc summary", `I1122 10:52:34.461500     537 bfc_allocator.cc:1120] Allocator memory summary: pool size 0B, in use 0B, largest free block 0B`, false},
		{"peak memory", `I1010 10:10:10.101 3321 profiler.py:61] Peak memory usage on device 0 during step 500: 61.2 GiB of 80.0 GiB`, false},
		{"memory usage without bytes", `Memory usage: 61.2 GiB of 80.0 GiB`, false},
		{"remat summary", `I0905 17:27:21 hlo_rematerialization.cc:3200] Rematerialization reduced peak memory by 1.00GiB (1073741824 bytes)`, false},
		{"prealloc", `I0000 00:00:1758277414.566053 1017489 gpu_helpers.cc:136] XLA backend allocating 16491332239 bytes on device 0 for BFCAllocator.`, false},
		{"cuda init", `CUDA backend failed to initialize: INTERNAL: no supported devices found for platform CUDA.This may be due to JAX pre-allocating too much device memory, leaving too little for CUDA library initialization.`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := Recognize(c.text); ok != c.oom {
				t.Errorf("Recognize = %v, want %v", ok, c.oom)
			}
			if c.oom {
				return // the processor never asks for a warning once an OOM is found
			}
			if w, ok := RecognizeWarning(c.text); ok {
				t.Errorf("recognised as warning %+v", w)
			}
		})
	}
}

// A record that warns and then fails is the failure: Recognize finds it, and
// RecognizeWarning, asked alone, reports the earliest warning.
func TestWarningThenFailureInOneRecord(t *testing.T) {
	text := "W1122 10:52:37.476699     622 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally\n" +
		"W1122 10:54:45.359616    2494 bfc_allocator.cc:371] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.01MiB from the lower end with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.\n" +
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 75003125004 bytes."
	if r, ok := Recognize(text); !ok || r.Requested.Bytes != 75003125004 {
		t.Errorf("Recognize = %+v, %v", r, ok)
	}
	if w, ok := RecognizeWarning(text); !ok || w.Kind != grammar.WarningRematerialization {
		t.Errorf("RecognizeWarning = %+v, %v", w, ok)
	}
}

func TestHeaderLevel(t *testing.T) {
	for line, want := range map[string]byte{
		"I0413 10:22:33.123456 1234 cuda_driver.cc:802] failed":                               'I',
		"E0413 10:22:33.123456 1234 cuda_driver.cc:802] failed":                               'E',
		"2019-03-08 10:41:02.356212: I tensorflow/stream_executor/cuda/cuda_driver.cc:806] x": 'I',
		"2019-03-08 10:41:02.356212: E tensorflow/stream_executor/cuda/cuda_driver.cc:806] x": 'E',
		"I0922 16:49:00 run_docker.py:193] 2021-09-22 16:49:00.853879: E external/x.cc:1] y":  'E',
		"failed to allocate 528.00M (553648128 bytes) from device":                            0,
	} {
		if _, got, _ := logheader.StripLevel(line); got != want {
			t.Errorf("stripHeadersLevel(%q) level = %q, want %q", line, got, want)
		}
	}
}

func TestWarningKindsDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range grammar.WarningKinds() {
		if grammar.Explanation(k) == "" || strings.ContainsAny(k, " .") {
			t.Errorf("kind %q: no explanation or not a token", k)
		}
		seen[k] = true
	}
	for _, f := range warningFixtures {
		delete(seen, f.want.Kind)
	}
	for k := range seen {
		t.Errorf("kind %q has no fixture", k)
	}
}

// TestWarningFamilyExamples: the example a warning entry shows in the docs is
// the text of one of its fixtures, and every warning entry has a kind.
func TestWarningFamilyExamples(t *testing.T) {
	for i := range defaultRecognizer.Warnings {
		f := &defaultRecognizer.Warnings[i]
		if !slices.Contains(grammar.WarningKinds(), f.Kind) {
			t.Errorf("warning family %s has the unknown kind %q", f.ID, f.Kind)
		}
		found := false
		for _, fx := range warningFixtures {
			if fx.want.Family == f.ID && fx.text == f.Example {
				found = true
			}
		}
		if !found {
			t.Errorf("warning family %s: the example is not the text of one of its fixtures", f.ID)
		}
	}
}

// TestRealCaptureWarnings reads every line of the real H100 captures
// (oom/testdata/real, jax 0.11.2): each rematerialization, BFC retry and
// StreamExecutor allocation attempt line is a warning of its kind with its sizes, passes the
// prefilter, and is not an OOM; no other line is a warning.
func TestRealCaptureWarnings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realDir, "*.stderr.txt"))
	if err != nil || len(files) == 0 {
		t.Fatal(err, files)
	}
	count := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			want := ""
			switch {
			case strings.Contains(line, "by rematerialization; only reduced to"):
				want = grammar.WarningRematerialization
			case strings.Contains(line, "with freed_by_count="):
				want = grammar.WarningAllocatorRetry
			case strings.Contains(line, "Failed to allocate device memory of"):
				want = grammar.WarningAllocationAttempt
			}
			w, ok := RecognizeWarning(line)
			if want == "" {
				if ok {
					t.Errorf("%s:%d: recognised as warning %s: %s", f, i+1, w.Kind, line)
				}
				continue
			}
			if !ok || w.Kind != want || !MayContain(line) {
				t.Errorf("%s:%d: got %+v, %v (MayContain %v), want %s", f, i+1, w, ok, MayContain(line), want)
				continue
			}
			if _, isOOM := Recognize(line); isOOM {
				t.Errorf("%s:%d: a warning line recognised as an OOM", f, i+1)
			}
			if p, hasP := w.Pressure(); want == grammar.WarningRematerialization && (!hasP || p < 1) {
				t.Errorf("%s:%d: rematerialization pressure %v, %v: the warning is printed only above the limit", f, i+1, p, hasP)
			}
			count[want]++
		}
	}
	t.Logf("warnings in the real captures: %v", count)
	if count[grammar.WarningRematerialization] == 0 || count[grammar.WarningAllocatorRetry] == 0 || count[grammar.WarningAllocationAttempt] == 0 {
		t.Errorf("the captures hold both kinds: %v", count)
	}
}
