// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// TestCodes: the code a record prints, before its message or in the doc URL
// after it, is the failure's.
func TestCodes(t *testing.T) {
	for _, c := range []struct {
		name, text, anchor string // anchor: where the failure's message starts
		code               string
		standalone         string
	}{
		{"code and name before the message (Enzyme-JAX#2422)", `ERROR: LoadError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 215.17G of 31.25G hbm. Exceeded hbm capacity by 183.92G.`,
			"Ran out of memory", "E1000", "E1000"},
		{"code, then the older URL trailer", "RESOURCE_EXHAUSTED: E1001: CompileTimeScopedVmemOom:\nScoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M.\nhttps://openxla.org/xla/errors#e1001",
			"Scoped allocation", "E1001", "E1001"},
		{"code, then the doc page", "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1001: CompileTimeScopedVmemOom:\nRan out of memory in memory space vmem.\nSee https://openxla.org/xla/errors/error_1001 for more details.",
			"Ran out of memory", "E1001", "E1001"},
		{"cut after the name: a code alone", `RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:`, "", "", "E1000"},
		{"no code", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 214748364800 bytes.`, "Out of memory", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			flat := logtext.WrapVocabulary(nil).Flatten(c.text)
			codes := FindCodes(flat, nil)
			if c.anchor != "" {
				got, ok := CodeFor(codes, strings.Index(flat, c.anchor))
				if got != c.code || ok != (c.code != "") {
					t.Errorf("CodeFor = %q %v, want %q", got, ok, c.code)
				}
			}
			if got, ok := StandaloneCode(codes); got != c.standalone || ok != (c.standalone != "") {
				t.Errorf("StandaloneCode = %q %v, want %q", got, ok, c.standalone)
			}
		})
	}
}

// TestGuarded: a guard phrase in the sentence before a match makes it a
// fallback or a start-up warning; one in an earlier sentence does not.
func TestGuarded(t *testing.T) {
	for _, c := range []struct {
		name, text, match string
		want              bool
	}{
		{"conv autotune fallback", `W tensorflow/compiler/xla/service/gpu/gpu_conv_algorithm_picker.cc:729] Failed to determine best cudnn convolution algorithm: Resource exhausted: Out of memory while trying to allocate 16777716 bytes.`,
			"Out of memory", true},
		{"GEMM autotune fallback", `W0301 12:00:00.000000 4242 gemm_algorithm_picker.cc:162] Failed to find best cuBLAS algorithm, GEMM performance might be suboptimal: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 33554432 bytes.`,
			"Out of memory", true},
		{"JAX start-up warning", `An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. CUDA backend failed to initialize: RESOURCE_EXHAUSTED: Failed to allocate device memory of 1.00GiB: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY`,
			"Failed to allocate", true},
		{"the guard's sentence ended before", `CUDA backend failed to initialize: INTERNAL: no supported devices found for platform CUDA.This may be due to JAX pre-allocating too much device memory, leaving too little for CUDA library initialization. See https://docs.jax.dev/en/latest/gpu_memory_allocation.html for more details and potential workarounds.`,
			"potential workarounds", false},
		{"no guard", `XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 214748364800 bytes.`, "Out of memory", false},
	} {
		if got := Guarded(c.text, strings.Index(c.text, c.match)); got != c.want {
			t.Errorf("%s: Guarded = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestEvidenceBackend(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`Exception in device=TPU:6: RESOURCE_EXHAUSTED: From /job:localservice/replica:0/task:0:`, "tpu"},
		{`W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.50GiB (rounded to 4831838208)requested by op `, "gpu"},
		{`W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at cast_op.cc:109 : Resource exhausted: OOM when allocating tensor with shape[1024,1024,64] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu`, "cpu"},
		{`jax.errors.JaxRuntimeError: Out of memory allocating 41246000000 bytes`, ""},
		// a TPU memory id and a CUDA error in one text: no guess
		{`(0x0x1_HBM0) CUDA_ERROR_OUT_OF_MEMORY`, ""},
	} {
		if got := EvidenceBackend(c.text); got != c.want {
			t.Errorf("EvidenceBackend(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
