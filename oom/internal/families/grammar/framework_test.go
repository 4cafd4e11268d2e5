// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFrameworkEvidence: real lines, each with its source and version, and the framework they show.
func TestFrameworkEvidence(t *testing.T) {
	for _, c := range []struct {
		src, text, framework string
		strength             int
	}{
		{"TF 2.x Python (errors_impl)", "tensorflow.python.framework.errors_impl.ResourceExhaustedError: failed to allocate memory [Op:AddV2]",
			FrameworkTensorFlow, FrameworkByException},
		{"TF 2.x Keras, tf.errors alias", "tf.errors.ResourceExhaustedError: OOM when allocating tensor with shape[64,512,512]",
			FrameworkTensorFlow, FrameworkByException},
		{"jaxlib 0.4.x", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes.",
			FrameworkJAX, FrameworkByException},
		{"jaxlib 0.5+ (jaxlib._jax)", "jaxlib._jax.XlaRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=38654705664) would exceed memory (size=34359738368)",
			FrameworkJAX, FrameworkByException},
		{"jax 0.4.36+", "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 41246000000 bytes",
			FrameworkJAX, FrameworkByException},
		{"torch_xla 2.x, XLA's status re-raised", "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 196.00M.",
			FrameworkPyTorchXLA, FrameworkByException},
		{"torch_xla 2.x frame", `  File "/usr/local/lib/python3.11/site-packages/torch_xla/core/xla_model.py", line 1056, in mark_step`,
			FrameworkPyTorchXLA, FrameworkByFrame},
		{"jax 0.8 frame", `  File "/opt/venv/lib/python3.12/site-packages/jax/_src/array.py", line 295, in __float__`,
			FrameworkJAX, FrameworkByFrame},
		{"Keras 3 on JAX frame", `  File "/usr/lib/python3.11/site-packages/keras/src/backend/jax/trainer.py", line 75, in train_step`,
			FrameworkJAX, FrameworkByFrame},
		{"tf.keras 2.x frame", `  File "/usr/local/lib/python3.8/dist-packages/keras/engine/training.py", line 1409, in fit`,
			FrameworkTensorFlow, FrameworkByFrame},
		{"TF 2.x frame", `  File "/usr/local/lib/python3.8/dist-packages/tensorflow/python/eager/execute.py", line 54, in quick_execute`,
			FrameworkTensorFlow, FrameworkByFrame},
		// A JAX traceback through Keras 3 on JAX: the exception decides.
		{"Keras 3 on JAX, frames and exception", "  File \"/x/keras/src/trainers/trainer.py\", line 9, in fit\njaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory",
			FrameworkJAX, FrameworkByException},
		{"TF 1.x BFC (tensorflow/core path)", "W tensorflow/core/common_runtime/bfc_allocator.cc:274] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB.",
			FrameworkTensorFlow, FrameworkByLog},
		{"TF 2.16 (local_xla)", "2024-05-01 10:00:00.000000: W external/local_xla/xla/stream_executor/gpu/gpu_driver.cc:1290] failed to allocate 1.00GiB",
			FrameworkTensorFlow, FrameworkByLog},
		{"TF 2.x gpu_device.cc start-up", "I0000 00:00:1700000000.123456  1234 gpu_device.cc:1886] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 38367 MB memory:  -> device: 0, name: NVIDIA A100-PCIE-40GB, pci bus id: 0000:00:04.0, compute capability: 8.0",
			FrameworkTensorFlow, FrameworkByLog},
		{"TF 1.7-2.2 gpu_device.cc start-up", "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1097] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10758 MB memory) -> physical GPU (device: 0, name: Tesla K80, pci bus id: 0000:00:1e.0, compute capability: 3.7)",
			FrameworkTensorFlow, FrameworkByLog},
		// Old jaxlib built XLA inside TensorFlow's tree: those paths are XLA's, not TensorFlow's runtime.
		{"jaxlib 0.1.x (org_tensorflow)", "E external/org_tensorflow/tensorflow/compiler/xla/python/local_client.cc:672] Execution of replica 0 failed: Resource exhausted: Out of memory while trying to allocate 5520758552 bytes.",
			"", 0},
		{"jaxlib 0.1.x BFC (org_tensorflow)", "W external/org_tensorflow/tensorflow/core/common_runtime/bfc_allocator.cc:424] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB",
			"", 0},
		// bfc_allocator.cc alone is XLA's as much as TensorFlow's.
		{"XLA 2025 BFC (jax 0.8)", "W1122 10:52:34.461392     537 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 93.13GiB (rounded to 100000000000) from the lower end requested by op",
			"", 0},
		{"XLA StreamExecutor (any framework)", "I0000 00:00:1700000000.1 1 service.cc:146] XLA service 0x55d0 initialized for platform CUDA (this does not guarantee that XLA will be used). Devices:",
			"", 0},
		{"empty", "", "", 0},
	} {
		f, s := FrameworkEvidence(c.text)
		if f != c.framework || s != c.strength {
			t.Errorf("%s: got %q (strength %d), want %q (%d)", c.src, f, s, c.framework, c.strength)
		}
		if FrameworkOf(c.text) != c.framework {
			t.Errorf("%s: FrameworkOf differs from FrameworkEvidence", c.src)
		}
		if rf, rs := ungatedEvidence(c.text); rf != f || rs != s {
			t.Errorf("%s: the gates change the answer: %q (%d) without them", c.src, rf, rs)
		}
	}
}

// ungatedEvidence is FrameworkEvidence trying every mark: the gates only save scans.
func ungatedEvidence(text string) (framework string, strength int) {
	for i := range frameworkMarks {
		if m := &frameworkMarks[i]; m.strength > strength && hasMark(text, m) {
			framework, strength = m.framework, m.strength
		}
	}
	return framework, strength
}

func BenchmarkFrameworkOf(b *testing.B) {
	text := "W1122 10:52:34.461392     537 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 93.13GiB (rounded to 100000000000) from the lower end requested by op\n" +
		"If this is caused by memory fragmentation, the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' may improve the situation.\nCurrent allocation summary follows."
	b.ReportAllocs()
	for b.Loop() {
		FrameworkOf(text)
	}
}

func BenchmarkFrameworkOfDump(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "real", "jit_temps.stderr.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	text := string(body)
	for b.Loop() {
		FrameworkOf(text)
	}
}
