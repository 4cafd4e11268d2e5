// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// TestOwnAdvice: a family with its own advice gives it for its Example,
// sizes read from the message included, with the action of its first step.
func TestOwnAdvice(t *testing.T) {
	for _, c := range []struct {
		id, text string // text "" is the entry's Example
		action   string
		words    []string // in the advice, in order
	}{
		{"gpu-driver-status", "", grammar.ActionFreeHeldMemory, []string{"refused XLA's memory pool", "nvidia-smi --query-compute-apps"}},
		{"gpu-driver-kernel-launch", "", grammar.ActionSetMemoryLimit, []string{"launch kernel fusion_12", "XLA_PYTHON_CLIENT_MEM_FRACTION", "smaller block size"}},
		{"gpu-driver-module-load", "", grammar.ActionSetMemoryLimit, []string{"CUBIN, PTX or HSACO", "compile fewer variants"}},
		// "total memory reported: 34089730048" is 31.75 GiB
		{"gpu-driver-context-init", "", grammar.ActionFreeHeldMemory, []string{"although it has 31.75 GiB in total", "one process per GPU"}},
		{"gpu-driver-unified-memory", "", grammar.ActionReleaseBuffers, []string{"allocate (2.00 GiB) of unified (managed) memory"}},
		{"gpu-driver-unified-memory-log", "", grammar.ActionReleaseBuffers, []string{"(2.00 GiB) of unified"}},
		{"gpu-runtime-constant-allocation", "", grammar.ActionShrinkFootprint, []string{"constants (1.00 MiB)", "closed-over arrays become constants"}},
		{"gpu-runtime-command-buffer", "", grammar.ActionSetMemoryLimit, []string{"CUDA graphs", "--xla_gpu_enable_command_buffer="}},
		// shape[16,64,64,64] of float: 16 MiB
		{"tensorflow-op-tensor-allocation", "", grammar.ActionShrinkFootprint, []string{"needed a 16.00 MiB tensor", "mixed_float16", "set_memory_growth"}},
		{"tensorflow-op-allocation-failed", "", grammar.ActionShrinkFootprint, []string{"Lower the batch size", "report_tensor_allocations_upon_oom"}},
		{"tensorflow-op-tensor-allocation", `W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at cast_op.cc:109 : Resource exhausted: OOM when allocating tensor with shape[1024,1024,64] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu`,
			grammar.ActionShrinkFootprint, []string{"needed a 256.00 MiB tensor", "This is host memory"}},
	} {
		t.Run(c.id, func(t *testing.T) {
			f := failureEntry(t, c.id)
			text := c.text
			if text == "" {
				text = f.Example
			}
			r, ok := readFailure(f, text)
			if !ok || f.Advice.Own == nil {
				t.Fatalf("read %v, own advice %v", ok, f.Advice.Own != nil)
			}
			advice := strings.Join(f.Advice.Own(&r), "\n")
			at := 0
			for _, w := range c.words {
				i := strings.Index(advice[at:], w)
				if i < 0 {
					t.Fatalf("%q not in the advice (after byte %d):\n%s", w, at, advice)
				}
				at += i + len(w)
			}
			if got := f.Advice.OwnAction(&r); got != c.action {
				t.Errorf("action %q, want %q", got, c.action)
			}
		})
	}
}

// TestLeadAdvice: an allocation above the whole memory leads with sharding.
func TestLeadAdvice(t *testing.T) {
	f := failureEntry(t, "tpu-compile-allocation-exceeds-memory")
	r, ok := readFailure(f, f.Example)
	if !ok {
		t.Fatal("the example is not read")
	}
	// "Allocation (size=38654705664) would exceed memory (size=34359738368)": 36 GiB of 32 GiB
	lead := f.Advice.Lead(&r)
	if !strings.HasPrefix(lead, "One allocation of 36.00 GiB alone exceeds the 32.00 GiB memory") || f.Advice.LeadAction != grammar.ActionShard {
		t.Errorf("lead %q, action %q", lead, f.Advice.LeadAction)
	}
	r.Capacity = grammar.Size{}
	if lead := f.Advice.Lead(&r); lead != "" {
		t.Errorf("without the capacity the lead is %q, want none", lead)
	}
}

func TestTensorBytes(t *testing.T) {
	for _, c := range []struct {
		shape, dtype string
		want         grammar.Size
	}{
		{"16,64,64,64", "float", b(16777216)}, // the tensorflow-op-tensor-allocation Example
		{"8,2048,2048", "half", b(67108864)},
		{"50000,50000", "float", b(10000000000)},
		{"1024, 1024, 64", "bfloat16", b(134217728)},
		{"", "double", b(8)}, // a scalar
		{"0,128", "int8", b(0)},
		{"16,64", "string", grammar.Size{}},                     // no fixed element size
		{"16,?", "float", grammar.Size{}},                       // unknown dimension
		{"16,,64", "float", grammar.Size{}},                     // empty dimension
		{"4294967296,4294967296", "complex128", grammar.Size{}}, // above int64
	} {
		if got := TensorBytes(c.shape, c.dtype); got != c.want {
			t.Errorf("TensorBytes(%q, %q) = %+v, want %+v", c.shape, c.dtype, got, c.want)
		}
	}
}
