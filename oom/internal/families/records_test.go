// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecords: whole records from issue threads (oom/testdata/messages),
// read by the entry of their failure, headers, wraps and tracebacks around.
func TestRecords(t *testing.T) {
	for _, c := range []struct {
		file, id string
		want     fields
	}{
		// LWM#60, wrapped before "Exceeded": "Used 21.95G of 15.48G hbm. Exceeded hbm capacity by 6.47G."
		{"tpu-compile-hbm-used_lwm60_wrapped.txt", "tpu-compile-hbm-used",
			fields{code: "E1000", backend: "tpu", space: "hbm", used: b(23568633037), capacity: b(16621523436), exceeded: b(6947109601)}},
		// DeepLearningExamples#405, a TF root-error list: "Out of memory while trying to allocate 68852648264 bytes"
		{"gpu-allocator-status_tf_root_errors.txt", "gpu-allocator-status", fields{code: "E0007", req: b(68852648264)}},
		// ROCm: "Failed to allocate request for 154.06GiB (165425291480B) on device ordinal 0"
		{"gpu-platform-allocator_rocm_driver_then_status.txt", "gpu-platform-allocator",
			fields{code: "E0007", backend: "gpu", device: "0", req: b(165425291480)}},
		// SkyRL#624: "gpu_async_1 cuMemAllocAsync failed to allocate 1225195446464 bytes"
		{"gpu-cuda-async-allocator_skyrl624.txt", "gpu-cuda-async-allocator",
			fields{code: "E0007", backend: "gpu", device: "1", req: b(1225195446464)}},
		// fAIr#59: shape[16,64,64,64] of float on device:GPU:0, the node cut
		{"tensorflow-op-tensor-allocation_graph_execution_truncated.txt", "tensorflow-op-tensor-allocation",
			fields{code: "E0007", backend: "gpu", device: "0", req: b(16777216)}},
		{"tensorflow-op-tensor-allocation_graph_execution_node.txt", "tensorflow-op-tensor-allocation",
			fields{code: "E0007", backend: "gpu", device: "0", instr: "model/conv2d_3/Conv2D", req: b(16777216)}},
		// the node on the line after "failed to allocate memory"
		{"tensorflow-op-allocation-failed_node_next_line.txt", "tensorflow-op-allocation-failed",
			fields{code: "E0007", instr: "model/lstm/while/body/_1/MatMul"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("..", "..", "testdata", "messages", c.file))
			if err != nil {
				t.Fatal(err)
			}
			r, ok := readFailure(failureEntry(t, c.id), string(body))
			if !ok {
				t.Fatalf("%s does not read the record", c.id)
			}
			if got := fieldsOf(&r); got != c.want {
				t.Errorf("read %+v\nwant %+v", got, c.want)
			}
		})
	}
}
