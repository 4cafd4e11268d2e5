// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import "testing"

// warningFields is what each warning entry reads of its own Example.
var warningFields = map[string]fields{
	// "below 56.41GiB (60574761232 bytes) ... only reduced to 69.85GiB (75003125004 bytes)"
	"xla-compile-remat-shortfall": {used: b(75003125004), capacity: b(60574761232)},
	// "GPU_0_bfc ... allocate 16.01MiB"
	"gpu-runtime-bfc-retry":              {backend: "gpu", device: "0", req: b(16787702)},
	"gpu-compile-conv-autotune-fallback": {backend: "gpu", req: b(16777716)},
	"gpu-compile-gemm-autotune-fallback": {backend: "gpu", req: b(33554432)},
	// "Memory usage: 4194304 bytes free, 85031714816 bytes total."
	"gpu-runtime-cudnn-memory-usage":        {backend: "gpu", free: b(4194304), capacity: b(85031714816)},
	"gpu-executor-device-alloc-attempt":     {backend: "gpu", device: "0", req: b(63763906560)},
	"gpu-executor-host-alloc-attempt":       {backend: "gpu", device: "0", req: b(2147483648)},
	"gpu-executor-collective-alloc-attempt": {backend: "gpu", device: "1", req: b(536870912)},
	"gpu-driver-alloc-attempt":              {backend: "gpu", req: b(165425291480)},
	"gpu-allocator-region-attempt":          {backend: "gpu", req: b(68719476736)},
	// "gpu_async_0 ... 63763120128 bytes ... Free memory/Total memory: 19529728/85017493504":
	// 0.75 of the total, the pool's reservation
	"gpu-cuda-async-reservation-attempt": {backend: "gpu", device: "0", req: b(63763120128), free: b(19529728), capacity: b(85017493504)},
}

// TestWarningExamples: every warning entry reads its own Example.
func TestWarningExamples(t *testing.T) {
	n := 0
	for _, g := range WarningGroups {
		for _, e := range g {
			n++
			t.Run(e.ID, func(t *testing.T) {
				want, ok := warningFields[e.ID]
				if !ok {
					t.Fatalf("no expected fields for the example of %s", e.ID)
				}
				r, ok := readWarning(warningEntry(t, e.ID), e.Example)
				if !ok {
					t.Fatalf("the entry does not read its example %q", e.Example)
				}
				if got := fieldsOf(&r); got != want {
					t.Errorf("read %+v\nwant %+v", got, want)
				}
			})
		}
	}
	if n != len(warningFields) {
		t.Errorf("%d entries, %d expectations: drop the expectations of removed entries", n, len(warningFields))
	}
}
