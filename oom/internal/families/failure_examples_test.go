// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// exampleFields is what each failure entry reads of its own Example (sizes
// in bytes, units base 1024); the face adds what other layers read.
var exampleFields = map[string]fields{
	// "Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G."
	"tpu-compile-hbm-used": {code: "E1000", backend: "tpu", space: "hbm", used: b(52978421596), capacity: b(34359738368), exceeded: b(18618683228)},
	// "Requires 3.84T, has 90.96G available."
	"tpu-compile-early-abort": {code: "E1000", backend: "tpu", req: b(4222124650660), free: b(97667556311), capacity: b(97667556311)},
	// "HLO temporaries (4.00T) exceeds available HBM (15.75G)"
	"tpu-compile-hlo-temporaries": {code: "E1000", backend: "tpu", space: "hbm", req: b(4398046511104), free: b(16911433728), capacity: b(16911433728)},
	// "TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, exceeding available bytes: 95.74G": used is the sum
	"tpu-compile-tensorcore-sparsecore-hbm": {code: "E1000", backend: "tpu", space: "hbm", used: b(224326141870), capacity: b(102800042230)},
	"tpu-compile-allocation-exceeds-memory": {code: "E1000", backend: "tpu", req: b(38654705664), capacity: b(34359738368)},
	"tpu-compile-vmem-stack":                {code: "E1001", backend: "tpu", space: "vmem", instr: "%my-custom-kernel"},
	// "size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M"
	"tpu-compile-scoped-vmem": {code: "E1001", backend: "tpu", space: "vmem", req: b(38010880), capacity: b(33554432), exceeded: b(4456448)},
	// "allocate 8.00M ... There are 6.43M free.; (0x0x1_HBM0)"
	"tpu-runtime-buffer": {code: "E0100", backend: "tpu", device: "0x0x1_HBM0", req: b(8388608), free: b(6742344)},
	// "reserve 6.48G ... 6.78G free, 0B reserved, and 3.33G reservable"
	"tpu-runtime-program-load":           {code: "E0101", backend: "tpu", req: b(6957847020), free: b(7279969567), reserved: b(0), reservable: b(3575560274)},
	"tpu-compile-sparsecore-offset":      {code: "E3000", backend: "tpu", space: "hbm", words: grammar.SparseCoreWords{Offset: 9000000, Limit: 8388607, Requested: 1048576}},
	"tpu-compile-out-of-memory-no-sizes": {code: "E1001", backend: "tpu", space: "vmem"},
	"tpu-runtime-program-load-fatal":     {code: "E0101", backend: "tpu"},
	"gpu-allocator-status":               {code: "E0007", req: b(214748364800)},
	// "32.00MiB (33554432B)": the exact figure
	"gpu-platform-allocator": {code: "E0007", device: "0", backend: "gpu", req: b(33554432)},
	// "4.50GiB (rounded to 4831838208)"
	"gpu-bfc-allocator":             {code: "E0007", device: "0", backend: "gpu", req: b(4831838208)},
	"gpu-bfc-allocator-tf1":         {code: "E0007", backend: "gpu", req: b(1073741824)},
	"gpu-driver-alloc-status":       {code: "E0007", backend: "gpu", req: b(165425291480)},
	"gpu-stream-executor-limit":     {code: "E0007", device: "0", req: b(1073741824), pool: b(4294967296)},
	"gpu-sycl-device-alloc":         {code: "E0007", backend: "gpu", req: b(17179869184)},
	"gpu-cuda-async-allocator":      {code: "E0007", device: "0", backend: "gpu", req: b(1073741824)},
	"gpu-collective-memory":         {code: "E0007", backend: "gpu", req: b(1073741824)},
	"gpu-vmm-allocator":             {code: "E0007", backend: "gpu", req: b(1073741824), used: b(79456894976), pool: b(80000000000)},
	"gpu-jaxlib-workspace":          {code: "E0007", backend: "gpu", instr: "syevd"},
	"gpu-driver-status":             {code: "E0007", backend: "gpu"},
	"gpu-driver-kernel-launch":      {code: "E0007", backend: "gpu", instr: "fusion_12"},
	"gpu-driver-module-load":        {code: "E0007", device: "0", backend: "gpu"},
	"gpu-driver-context-init":       {code: "E0007", backend: "gpu", capacity: b(34089730048)},
	"gpu-driver-unified-memory":     {code: "E0007", device: "0", backend: "gpu", req: b(2147483648)},
	"gpu-driver-unified-memory-log": {code: "E0007", backend: "gpu", req: b(2147483648)},
	// "Failed to allocate 1048576 bytes for new constant"
	"gpu-runtime-constant-allocation": {code: "E0007", backend: "gpu", req: b(1048576)},
	"gpu-runtime-command-buffer":      {code: "E0007", backend: "gpu"},
	"cpu-runtime":                     {code: "E0007", backend: "cpu", req: b(41246000000)},
	"cpu-runtime-host-buffer":         {code: "E0007", space: "host", req: b(268435456)},
	"cpu-runtime-staging-buffer":      {code: "E0007", space: "host", req: b(268435456)},
	// shape[16,64,64,64] of float: 4194304 elements of 4 bytes
	"tensorflow-op-tensor-allocation": {code: "E0007", backend: "gpu", device: "0", instr: "Conv2D", req: b(16777216)},
	"tensorflow-op-gpu-scratch":       {code: "E0007", backend: "gpu", instr: "MatMul", req: b(1073741824)},
	"tensorflow-gpu-eigen-allocator":  {code: "E0007", backend: "gpu", req: b(1073741824)},
	"tensorflow-op-allocation-failed": {code: "E0007", instr: "AddV2"},
	"gpu-compile-autotuner":           {code: "E0007"},
}

// TestFailureExamples: every failure entry reads its own Example, with the
// figures the message prints.
func TestFailureExamples(t *testing.T) {
	n := 0
	for _, g := range FailureGroups {
		for _, e := range g {
			n++
			t.Run(e.ID, func(t *testing.T) {
				want, ok := exampleFields[e.ID]
				if !ok {
					t.Fatalf("no expected fields for the example of %s", e.ID)
				}
				r, ok := readFailure(failureEntry(t, e.ID), e.Example)
				if !ok {
					t.Fatalf("the entry does not read its example %q", e.Example)
				}
				if got := fieldsOf(&r); got != want {
					t.Errorf("read %+v\nwant %+v", got, want)
				}
			})
		}
	}
	if n != len(exampleFields) {
		t.Errorf("%d entries, %d expectations: drop the expectations of removed entries", n, len(exampleFields))
	}
}
