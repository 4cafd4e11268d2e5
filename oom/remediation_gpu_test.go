// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strings"
	"testing"
)

// TestGPUPoolAdvice: whether to offer a larger share of the GPU
// (XLA_PYTHON_CLIENT_MEM_FRACTION) depends on how the request compares with
// the whole device and with XLA's pool on it. The texts are the H100 captures'
// cudaMallocAsync lines (testdata/real/cuda_async_device_put.stderr.txt) with
// the request changed.
func TestGPUPoolAdvice(t *testing.T) {
	async := func(req string) string {
		return "E1122 10:53:19.420236    1109 gpu_cudamallocasync_allocator.cc:366] gpu_async_0 cuMemAllocAsync failed to allocate " + req +
			" bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			"=== Source Location Trace: === \nexternal/xla+/xla/stream_executor/cuda/cuda_status.cc:45\n\n" +
			" Reported by CUDA: Free memory/Total memory: 20701184000/85017493504\n" +
			"E1122 10:53:19.420431    1109 gpu_cudamallocasync_allocator.cc:371] Stats: Limit:                        59.38GiB\n" +
			"InUse:                              0B\nMaxInUse:                           0B\n"
	}
	bfc := func(req, free, limit string) string {
		return "W1122 10:52:34.461361     537 bfc_allocator.cc:512] Allocator (GPU_0_bfc) ran out of memory trying to allocate " + req +
			" (rounded to 100000000000)requested by op \nAllocator memory summary: rounded request " + req + ", total free in pool 0B, " +
			"largest free chunk usable by lower end 0B, unallocated bytes " + free + ", pool size 0B, pool limit " + limit + "\n"
	}
	for _, tc := range []struct {
		name         string
		text         string
		pool         int64
		want, absent []string
	}{
		{"larger than the GPU", async("100000000000"), 63758789509,
			[]string{"larger than the whole device (79.18 GiB; only 19.28 GiB is free)", "shard or shrink"},
			[]string{"XLA_PYTHON_CLIENT_MEM_FRACTION", "memory pool"}},
		{"larger than the pool, fits the GPU", async("70000000000"), 63758789509,
			// 70e9 / 85017493504 = 82.3%: round up, plus a margin for what is live.
			[]string{"larger than XLA's whole memory pool on this GPU (pool limit 59.38 GiB; only 19.28 GiB is free)",
				"82% of the GPU's 79.18 GiB", "XLA_PYTHON_CLIENT_MEM_FRACTION=0.90", "memory_limit of 72971 MB", "PJRT_ALLOCATOR_FRACTION=0.90"},
			[]string{"whole device", "more of the GPU"}},
		{"90% of the GPU: the largest fraction offered", async("76500000000"), 63758789509,
			[]string{"at least 0.95 of the GPU (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION=0.95"}, nil},
		{"nearly the whole GPU: no fraction fits it", async("84000000000"), 63758789509,
			[]string{"99% of the GPU's 79.18 GiB, more than any share of the GPU can leave room for"},
			[]string{"at least 0.", "1.00"}},
		{"within the pool", async("30000000000"), 63758789509,
			[]string{"only 19.28 GiB is free: reduce what the program keeps", "Give the pool more of the GPU (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION"},
			[]string{"memory pool", "whole device"}},
		{"larger than the pool, GPU size unknown", bfc("93.13GiB", "59.38GiB", "59.38GiB"), 63758789509,
			[]string{"larger than XLA's whole memory pool", "helps only if the GPU has well over 93.13 GiB in total"},
			[]string{"more of the GPU", "at least 0."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Recognize(tc.text)
			if !ok {
				t.Fatal("not recognised")
			}
			if !r.PoolLimit.Known || r.PoolLimit.Bytes != tc.pool {
				t.Errorf("PoolLimit = %+v, want %d", r.PoolLimit, tc.pool)
			}
			checkAdvice(t, r.Remediation, tc.want, tc.absent)
		})
	}
}

// checkAdvice fails t unless the remediation contains every want and none of
// absent (substrings of the joined steps).
func checkAdvice(t *testing.T, remediation, want, absent []string) {
	t.Helper()
	all := strings.Join(remediation, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("remediation lacks %q:\n%s", w, all)
		}
	}
	for _, a := range absent {
		if strings.Contains(all, a) {
			t.Errorf("remediation gives %q:\n%s", a, all)
		}
	}
}

// TestPinnedHostAdvice: host memory pinned for a GPU is not a share of the
// GPU, so XLA_PYTHON_CLIENT_MEM_FRACTION is never offered; XLA's own host
// pool (xla_gpu_host_bfc) is sized by XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB.
// The texts are the H100 capture's (testdata/real/pinned_host_device_put.*)
// with the figures changed, and StreamExecutor's pinned-allocation line.
func TestPinnedHostAdvice(t *testing.T) {
	status := func(req string) string {
		return "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of host memory while trying to allocate " + req +
			" with allocator xla_gpu_host_bfc on device 0. Please set the environment variable XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to allocate larger host memory than the default 64 GB. [tf-allocator-allocation-error='']"
	}
	bfc := func(req, exact, free, unallocated, pool string) string {
		return "W1124 17:50:52.037779    1070 bfc_allocator.cc:598] Allocator (xla_gpu_host_bfc) ran out of memory trying to allocate " + req +
			" (rounded to " + exact + ") from the lower end requested by op \n" +
			"I1124 17:50:52.037951    1070 bfc_allocator.cc:1477] Allocator memory summary: rounded request " + req + ", total free in pool " + free +
			", largest free chunk usable by lower end " + free + ", unallocated bytes " + unallocated + ", pool size " + pool + ", pool limit 64.00GiB\n"
	}
	noGPU := []string{"XLA_PYTHON_CLIENT_MEM_FRACTION", "Give XLA more of the GPU", "per-device footprint", "nvidia-smi", "cuda_async"}
	for _, tc := range []struct {
		name         string
		text         string
		want, absent []string
	}{
		{"status: the request alone sets the floor", status("93.13GiB"),
			[]string{"pool could not hold the request (93.13 GiB): set XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to at least 94", "pinned host memory"}, noGPU},
		{"larger than the whole pool", bfc("93.13GiB", "100000000000", "0B", "64.00GiB", "0B"),
			[]string{"larger than XLA's whole pinned host memory pool (pool limit 64.00 GiB)", "XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to at least 94"},
			append([]string{"could not hold"}, noGPU...)},
		// 61 GiB of the 64 GiB pool is held: it must hold that and the 8 GiB more.
		{"fits the pool, the pool is full", bfc("8.00GiB", "8589934592", "1.00GiB", "2.00GiB", "62.00GiB"),
			[]string{"pool could not hold the request (8.00 GiB): set XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to at least 69"},
			append([]string{"whole pinned host memory pool"}, noGPU...)},
		// The driver refused to pin: XLA's pool limit is not what stopped it.
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Recognize(tc.text)
			if !ok {
				t.Fatal("not recognised")
			}
			if r.MemorySpace != "host" {
				t.Fatalf("MemorySpace = %q, want host", r.MemorySpace)
			}
			checkAdvice(t, r.Remediation, tc.want, tc.absent)
		})
	}
}
