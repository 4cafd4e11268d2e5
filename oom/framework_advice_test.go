// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// foreignKnobs are the words of other frameworks' knobs, per framework: advice for a program of that framework
// never holds one. An unknown framework may name every knob, each with its framework.
var foreignKnobs = map[string][]string{
	FrameworkTensorFlow: {"XLA_PYTHON_CLIENT_", "jax.", "donate_argnums", "PJRT_ALLOCATOR_", "torch", "JAX:", "PyTorch/XLA:"},
	FrameworkPyTorchXLA: {"XLA_PYTHON_CLIENT_", "jax.", "donate_argnums", "TF_GPU_ALLOCATOR", "TF_FORCE_GPU", "tf.", "JAX:", "TensorFlow:"},
	FrameworkJAX:        {"TF_GPU_ALLOCATOR", "TF_FORCE_GPU", "tf.", "PJRT_ALLOCATOR_", "torch", "TensorFlow:", "PyTorch/XLA:"},
}

// frameworkRecords is every record of oom/testdata and of the fixtures: the file or fixture name and its text.
func frameworkRecords(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{"real/*.txt", "messages/*.txt", "allocator_dump/*.txt", "negative/*.txt", "jobs/*.log"} {
		paths, err := filepath.Glob(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			body, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = string(body)
		}
	}
	for _, f := range fixtures {
		out["fixture "+f.name] = f.body(t)
	}
	table, err := os.ReadFile(filepath.Join("testdata", "coverage", "classification.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	unescape := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`)
	for line := range strings.Lines(string(table)) {
		cols := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(cols) < 4 || strings.HasPrefix(cols[0], "#") {
			continue
		}
		out["classification "+cols[0]] = unescape.Replace(cols[3])
	}
	return out
}

// TestNoForeignKnobs: no record of a known framework, in oom/testdata or the fixtures, is advised with another
// framework's knob; the set holds records of each framework, so the test can fail.
func TestNoForeignKnobs(t *testing.T) {
	records := frameworkRecords(t)
	seen := map[string]int{}
	for _, name := range slices.Sorted(maps.Keys(records)) {
		r, ok := Recognize(records[name])
		if !ok {
			continue
		}
		seen[r.Framework]++
		advice := strings.Join(r.Remediation, "\n")
		for _, w := range foreignKnobs[r.Framework] {
			if strings.Contains(advice, w) {
				t.Errorf("%s (%s): advice names %q:\n%s", name, r.Framework, w, advice)
			}
		}
	}
	t.Logf("records by framework: %v", seen)
	for _, f := range []string{FrameworkTensorFlow, FrameworkJAX, FrameworkPyTorchXLA, ""} {
		if seen[f] < 3 {
			t.Errorf("only %d records of framework %q: the test reads too few", seen[f], f)
		}
	}
}

// TestFrameworkAdvice: real records of each framework are advised with that framework's knobs, and a record
// that shows none with each knob and its framework.
func TestFrameworkAdvice(t *testing.T) {
	device := readReal(t, "device_put.stderr.txt")
	lines := strings.SplitAfter(device, "\n")
	for _, c := range []struct {
		name, src, text, framework string
		want                       []string // each in the advice
	}{
		{"JAX traceback of a jit (jax 0.8, A100 80GB)", "oom/testdata/real/mem_fraction_jit.traceback.txt",
			readReal(t, "mem_fraction_jit.traceback.txt"), FrameworkJAX,
			[]string{"jax.checkpoint (remat)", "XLA_PYTHON_CLIENT_MEM_FRACTION"}},
		{"JAX traceback, frames and exception", "oom/testdata/real/device_put.traceback.txt",
			readReal(t, "device_put.traceback.txt"), FrameworkJAX,
			[]string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}},
		{"TensorFlow 1.x with XLA: root errors", "NVIDIA/DeepLearningExamples#405, oom/testdata/messages/gpu-allocator-status_tf_root_errors.txt",
			readMessage(t, "gpu-allocator-status_tf_root_errors.txt"), FrameworkTensorFlow,
			[]string{"tf.recompute_grad", `tf.keras.mixed_precision.set_global_policy("mixed_float16")`, "tf.config.experimental.set_memory_growth(gpu, True)", "TF_FORCE_GPU_ALLOW_GROWTH=true"}},
		{"TensorFlow on TPU: compile OOM", "oom/testdata/messages/tpu-compile-out-of-memory-no-sizes_root_errors.txt",
			readMessage(t, "tpu-compile-out-of-memory-no-sizes_root_errors.txt"), FrameworkTensorFlow,
			[]string{"tf.recompute_grad", "Drop references to tensors not needed after the step so that TensorFlow frees them"}},
		{"TensorFlow 1.x BFC log line", "tensorflow/core/common_runtime/bfc_allocator.cc template of TF 1.1-1.13 (coverage table)",
			"W tensorflow/core/common_runtime/bfc_allocator.cc:274] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB.  Current allocation summary follows.",
			FrameworkTensorFlow, []string{"tf.recompute_grad", "memory growth"}},
		{"PyTorch/XLA on TPU: device buffer", "pytorch/xla, oom/testdata/messages/tpu-runtime-buffer_wrapped_in_number.txt",
			readMessage(t, "tpu-runtime-buffer_wrapped_in_number.txt"), FrameworkPyTorchXLA,
			[]string{"Drop references to tensors not needed after the step so that PyTorch/XLA frees them"}},
		{"PyTorch/XLA on GPU: cuda_async refusal", "torch_xla 2.x GPU, RuntimeError of gpu_cudamallocasync_allocator.cc",
			"RuntimeError: Bad StatusOr access: INTERNAL: gpu_async_0 cuMemAllocAsync failed to allocate 4294967296 bytes: CUDA error: out of memory (CUDA_ERROR_OUT_OF_MEMORY)\n Reported by CUDA: Free memory/Total memory: 1048576/85899345920",
			FrameworkPyTorchXLA, []string{"torch_xla.utils.checkpoint", `torch.autocast("xla", dtype=torch.bfloat16)`, "PJRT_ALLOCATOR_FRACTION"}},
		// device_put.stderr.txt lines 12-14: XLA's BFC line alone names no framework
		{"XLA's BFC log line alone (jax 0.8)", "oom/testdata/real/device_put.stderr.txt:12-14",
			strings.Join(lines[11:14], ""), "",
			[]string{"rematerialization (JAX: jax.checkpoint; TensorFlow: tf.recompute_grad; PyTorch/XLA: torch_xla.utils.checkpoint)",
				"JAX: XLA_PYTHON_CLIENT_MEM_FRACTION", "TensorFlow: ", "PyTorch/XLA: PJRT_ALLOCATOR_FRACTION"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ok := Recognize(c.text)
			if !ok {
				t.Fatalf("%s: not recognised", c.src)
			}
			if r.Framework != c.framework {
				t.Errorf("%s: framework %q, want %q", c.src, r.Framework, c.framework)
			}
			advice := strings.Join(r.Remediation, "\n")
			for _, w := range c.want {
				if !strings.Contains(advice, w) {
					t.Errorf("%s: advice lacks %q:\n%s", c.src, w, advice)
				}
			}
			for _, w := range foreignKnobs[c.framework] {
				if strings.Contains(advice, w) {
					t.Errorf("%s: advice names %q:\n%s", c.src, w, advice)
				}
			}
		})
	}
}

func readMessage(t *testing.T, name string) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "messages", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
