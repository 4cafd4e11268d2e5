// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"strings"
	"testing"
)

func TestRenderKnobs(t *testing.T) {
	share := KnobRef(KnobPoolShareAtLeast, "0.90", "72971")
	src := "The request is 82% of the GPU's 79.18 GiB: " + share + ", or shard or shrink the array."
	for _, c := range []struct{ framework, want string }{
		{FrameworkJAX, "The request is 82% of the GPU's 79.18 GiB: raise XLA_PYTHON_CLIENT_MEM_FRACTION to at least 0.90 (default .75), or shard or shrink the array."},
		{FrameworkPyTorchXLA, "The request is 82% of the GPU's 79.18 GiB: raise PJRT_ALLOCATOR_FRACTION to at least 0.90 (default .75), or shard or shrink the array."},
		{FrameworkTensorFlow, "The request is 82% of the GPU's 79.18 GiB: set a virtual device memory_limit of at least 72971 MB (tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=72971)])), or shard or shrink the array."},
		{"", "The request is 82% of the GPU's 79.18 GiB: give the pool at least 0.90 of the GPU (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION=0.90; TensorFlow: a virtual device memory_limit of 72971 MB; PyTorch/XLA: PJRT_ALLOCATOR_FRACTION=0.90), or shard or shrink the array."},
		{"mxnet", "The request is 82% of the GPU's 79.18 GiB: give the pool at least 0.90 of the GPU (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION=0.90; TensorFlow: a virtual device memory_limit of 72971 MB; PyTorch/XLA: PJRT_ALLOCATOR_FRACTION=0.90), or shard or shrink the array."},
	} {
		if got := RenderKnobs(src, c.framework); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.framework, got, c.want)
		}
	}
	// Two references in one step, and a step without one is itself.
	two := "Use " + KnobRef(KnobRemat) + " and " + KnobRef(KnobLowPrecision) + "."
	if got := RenderKnobs(two, FrameworkJAX); got != "Use jax.checkpoint (remat) and bfloat16." {
		t.Errorf("two references: %q", got)
	}
	if plain := "Capture a profile."; RenderKnobs(plain, FrameworkJAX) != plain || HasKnob(plain) {
		t.Error("a step without a reference changed")
	}
}

// TestRenderKnobsMalformed: a cut or foreign reference renders without a crash and without its mark bytes
// where it is whole.
func TestRenderKnobsMalformed(t *testing.T) {
	for _, src := range []string{
		"\x1f", "\x1f\x01", "a\x1f\x01b", "\x1f\xff\x1f", "\x1f\x00\x1f", "x\x1f\x02\x1e\x1e\x1f", "\x1f\x02{1}{2}\x1f",
		KnobRef(KnobPoolShareAtLeast), // arguments missing: the placeholders read empty
	} {
		for _, f := range []string{FrameworkJAX, FrameworkTensorFlow, FrameworkPyTorchXLA, ""} {
			_ = RenderKnobs(src, f)
		}
	}
	if got := RenderKnobs("a"+KnobRef(Knob(200))+"b", FrameworkJAX); got != "ab" {
		t.Errorf("an unknown knob: %q", got)
	}
}

// TestKnobTable: every knob has a text for every framework, or for none but JAX and unknown (a clause JAX
// alone has); the unknown text names each framework that has one; JAX's bare names stay bare, so that a
// family's text written for JAX renders unchanged.
func TestKnobTable(t *testing.T) {
	for k := Knob(1); k < knobEnd; k++ {
		x := knobs[k]
		if x.jax == "" || x.unknown == "" {
			t.Errorf("knob %d: a JAX or unknown text is missing", k)
		}
		if k == KnobName {
			continue
		}
		if (x.tensorflow == "") != (x.pytorchXLA == "") {
			t.Errorf("knob %d: TensorFlow and PyTorch/XLA texts, one without the other", k)
		}
		if x.tensorflow != "" && (!strings.Contains(x.unknown, "TensorFlow") || !strings.Contains(x.unknown, "PyTorch/XLA") || !strings.Contains(x.unknown, "JAX")) {
			t.Errorf("knob %d: the unknown text does not name each framework: %q", k, x.unknown)
		}
	}
	for _, bare := range []struct {
		k    Knob
		text string
	}{{KnobPoolShare, "XLA_PYTHON_CLIENT_MEM_FRACTION"}, {KnobGrowOnDemand, "XLA_PYTHON_CLIENT_PREALLOCATE=false"},
		{KnobPreallocate, "XLA_PYTHON_CLIENT_PREALLOCATE=true"}, {KnobAsyncAllocator, "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async"}, {KnobName, "JAX"}} {
		if got := KnobText(bare.k, FrameworkJAX); got != bare.text {
			t.Errorf("knob %d for JAX: %q, want %q", bare.k, got, bare.text)
		}
	}
	if n := len(KnobTexts()); n != int(knobEnd)-1 {
		t.Errorf("KnobTexts lists %d knobs, want %d", n, knobEnd-1)
	}
}
