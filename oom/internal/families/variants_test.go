// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// variants are real messages other than the Examples (from the oom
// package's fixtures), each read by one entry; ok false: the entry must
// not take the text.
var variants = []struct {
	name, id, text string
	ok             bool
	want           fields
}{
	{"vmem Used of: E1001, not E1000 (pytorch/xla#9524)", "tpu-compile-hbm-used",
		`RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space vmem. Used 32.42M of 16.00M vmem. Exceeded vmem capacity by 16.42M`,
		true, fields{code: "E1001", backend: "tpu", space: "vmem", used: b(33994834), capacity: b(16777216), exceeded: b(17217618)}},
	{"smem, 1.7K exceeded (vllm#8318)", "tpu-compile-hbm-used",
		`RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space smem. Used 1.00M of 1.00M smem. Exceeded smem capacity by 1.7K.`,
		true, fields{code: "E1001", backend: "tpu", space: "smem", used: b(1048576), capacity: b(1048576), exceeded: b(1741)}},
	{"3.47E requested (jax#7822)", "tpu-compile-early-abort",
		`Compilation failure: Aborting compilation early because it's unlikely to have enough memory. Requires 3.47E, has 14.49G available.`,
		true, fields{code: "E1000", backend: "tpu", req: b(4000637620985759007), free: b(15558519030), capacity: b(15558519030)}},
	{"replica context (pytorch/xla#8020)", "tpu-runtime-buffer",
		`RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 196.00M. That was not possible. There are 134.44M free.; (1x0x0_HBM0): while running replica 0 and partition 0 of a replicated computation (other replicas may have failed as well).`,
		true, fields{code: "E0100", backend: "tpu", device: "1x0x0_HBM0", req: b(205520896), free: b(140970557)}},
	{"named program, 147.64M free", "tpu-runtime-program-load",
		`XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well).`,
		true, fields{code: "E0101", backend: "tpu", req: b(31664646390), free: b(154811761), reserved: b(0), reservable: b(154811761)}},
	{"space 201 is tilespmem", "tpu-compile-sparsecore-offset",
		`INTERNAL:Failed to run pass pipeline. Hlo-Op: result.1:279:1: error: 'memref.alloca' op current allocation offset upper bound (140704 words) exceeds the legitimate user allocatable offset upper bound (131071 words) in memory space 201 when allocating 23440 words. ...`,
		true, fields{code: "E3000", backend: "tpu", space: "tilespmem", words: grammar.SparseCoreWords{Offset: 140704, Limit: 131071, Requested: 23440}}},
	{"Fatal error without a resource-exhausted status", "tpu-runtime-program-load-fatal",
		`Error loading program: Fatal error`, false, fields{}},
	{"old local client, 'Out \\nof' wrapped (jax#788)", "gpu-allocator-status",
		"E external/org_tensorflow/tensorflow/compiler/xla/python/local_client.cc:672] Execution of replica 0 failed: Resource exhausted: Out \nof memory while trying to allocate 5520758552 bytes.",
		true, fields{code: "E0007", req: b(5520758552)}},
	{"a refusal of 1 GiB of 79.25 GiB is no pool reservation", "gpu-cuda-async-reservation-attempt",
		"E1103 18:23:55.103160 3413767 gpu_cudamallocasync_allocator.cc:361] gpu_async_0 cuMemAllocAsync failed to allocate 1073741824 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n Reported by CUDA: Free memory/Total memory: 2147483648/85095874560",
		false, fields{}},
	{"CPU tensor: host memory, no device", "tensorflow-op-tensor-allocation",
		`W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at cast_op.cc:109 : Resource exhausted: OOM when allocating tensor with shape[1024,1024,64] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu`,
		true, fields{code: "E0007", backend: "cpu", space: "host", req: b(268435456)}},
	{"old 'tensor of shape' wording", "tensorflow-op-tensor-allocation",
		`E tensorflow/core/common_runtime/executor.cc:334] Executor failed to create kernel. Resource exhausted: OOM when allocating tensor of shape [4096,4096] and type float`,
		true, fields{code: "E0007", req: b(67108864)}},
	{"conv autotune: scratch over the redzone limit", "gpu-compile-conv-autotune-fallback",
		"W0301 12:00:00.000000 4242 conv_algorithm_picker.cc:1088] Failed to determine best cudnn convolution algorithm for:\n%cudnn-conv = (f32[8,64,56,56]{3,2,1,0}, u8[0]{0}) custom-call(f32[8,64,56,56]{3,2,1,0} %p0, f32[64,64,3,3]{3,2,1,0} %p1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, custom_call_target=\"__cudnn$convForward\"\n\nOriginal error: RESOURCE_EXHAUSTED: Allocating 4294967296 bytes exceeds the memory limit of 2147483648 bytes.\n\nAs a result, convolution performance may be suboptimal.",
		true, fields{backend: "gpu", req: b(4294967296), capacity: b(2147483648)}},
	{"the strict conv picker fails the compile: no warning", "gpu-compile-conv-autotune-fallback",
		"UNKNOWN: Failed to determine best cudnn convolution algorithm for:\n%cudnn-conv = f32[1]{0} custom-call()\n\nOriginal error: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 16777716 bytes.\n\nTo ignore this failure and try to use a fallback algorithm (which may have suboptimal performance), use XLA_FLAGS=--xla_gpu_strict_conv_algorithm_picker=false.  Please also file a bug for the root cause of failing autotuning.",
		false, fields{}},
}

// TestVariants: the entries read real wordings besides their Examples, and
// keep out of what is not theirs.
func TestVariants(t *testing.T) {
	for _, c := range variants {
		t.Run(c.name, func(t *testing.T) {
			var got fields
			var ok bool
			if isWarning(c.id) {
				r, found := readWarning(warningEntry(t, c.id), c.text)
				got, ok = fieldsOf(&r), found
			} else {
				r, found := readFailure(failureEntry(t, c.id), c.text)
				got, ok = fieldsOf(&r), found
			}
			if ok != c.ok {
				t.Fatalf("%s reads it: %v, want %v (%+v)", c.id, ok, c.ok, got)
			}
			if ok && got != c.want {
				t.Errorf("read %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func isWarning(id string) bool {
	for _, g := range WarningGroups {
		for _, w := range g {
			if w.ID == id {
				return true
			}
		}
	}
	return false
}
