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
				"82% of the GPU's 79.18 GiB", "XLA_PYTHON_CLIENT_MEM_FRACTION to at least 0.90"},
			[]string{"whole device", "Give XLA more of the GPU"}},
		{"90% of the GPU: the largest fraction offered", async("76500000000"), 63758789509,
			[]string{"XLA_PYTHON_CLIENT_MEM_FRACTION to at least 0.95"}, nil},
		{"nearly the whole GPU: no fraction fits it", async("84000000000"), 63758789509,
			[]string{"99% of the GPU's 79.18 GiB, more than any XLA_PYTHON_CLIENT_MEM_FRACTION can leave room for"},
			[]string{"at least 0.", "1.00"}},
		{"within the pool", async("30000000000"), 63758789509,
			[]string{"only 19.28 GiB is free: reduce what the program keeps", "Give XLA more of the GPU"},
			[]string{"memory pool", "whole device"}},
		{"larger than the pool, GPU size unknown", bfc("93.13GiB", "59.38GiB", "59.38GiB"), 63758789509,
			[]string{"larger than XLA's whole memory pool", "helps only if the GPU has well over 93.13 GiB in total"},
			[]string{"Give XLA more of the GPU", "at least 0."}},
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
