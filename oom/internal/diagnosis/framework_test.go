// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"slices"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

var allFrameworks = []string{grammar.FrameworkJAX, grammar.FrameworkTensorFlow, grammar.FrameworkPyTorchXLA, ""}

// TestReframeIsFinish: re-rendering any case's advice for a framework gives what Finish gives the same
// report when it knows that framework from the start; the action does not change.
func TestReframeIsFinish(t *testing.T) {
	for _, c := range finishCases {
		for _, from := range allFrameworks {
			for _, to := range allFrameworks {
				if to == "" && grammar.FrameworkOf(c.text) != "" {
					continue // Finish reads the text's own framework: no report of it starts unknown
				}
				got := c.read
				got.Framework = from
				Finish(&got, c.text, c.traits)
				Reframe(&got, to)
				want := c.read
				want.Framework = to
				Finish(&want, c.text, c.traits)
				if got.Framework != to || !slices.Equal(got.Remediation, want.Remediation) || got.Action != want.Action {
					t.Errorf("%s: %q → %q:\n%q\nwant %q", c.name, from, to, got.Remediation, want.Remediation)
				}
			}
		}
	}
}

// jaxPoolFailure is XLA's BFC line of a JAX job (jax 0.8 on an A100 80GB, oom/testdata/real/jit_temps.stderr.txt),
// raised as JAX raises it: a request larger than the pool, which fits the GPU.
const jaxPoolFailure = `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 75003125760 bytes.`

func jaxPoolReport() grammar.Report {
	r := grammar.Report{Code: grammar.CodeGeneric, Backend: grammar.BackendGPU, Device: "0", Requested: b(70000000000),
		Free: b(20701184000), PoolLimit: b(63758789509), Capacity: b(85017493504), Cause: grammar.CauseExhaustion}
	Finish(&r, jaxPoolFailure, grammar.AdviceTraits{})
	return r
}

// TestReframeJAXToTensorFlow: the lead learns late that the program is TensorFlow's; its knobs replace JAX's,
// and steps prepended since stay first and as they were.
func TestReframeJAXToTensorFlow(t *testing.T) {
	r := jaxPoolReport()
	if r.Framework != grammar.FrameworkJAX {
		t.Fatalf("framework %q", r.Framework)
	}
	jax := strings.Join(r.Remediation, "\n")
	for _, w := range []string{"raise XLA_PYTHON_CLIENT_MEM_FRACTION to at least 0.90", "jax.checkpoint (remat)"} {
		if !strings.Contains(jax, w) {
			t.Errorf("JAX advice lacks %q:\n%s", w, jax)
		}
	}
	before := slices.Clone(r.Remediation)
	copied := r // a copy of the report keeps its own advice
	const held = "Free the memory other processes held at start-up."
	r.Remediation = append([]string{held}, r.Remediation...)

	Reframe(&r, grammar.FrameworkTensorFlow)
	once := slices.Clone(r.Remediation)
	Reframe(&r, grammar.FrameworkTensorFlow)
	if !slices.Equal(once, r.Remediation) {
		t.Errorf("not idempotent:\n%q\n%q", once, r.Remediation)
	}
	if r.Framework != grammar.FrameworkTensorFlow || r.Remediation[0] != held || len(r.Remediation) != len(before)+1 {
		t.Fatalf("framework %q, advice %q", r.Framework, r.Remediation)
	}
	tf := strings.Join(r.Remediation, "\n")
	for _, w := range []string{"memory_limit of at least 72971 MB", "tf.recompute_grad", `set_global_policy("mixed_float16")`} {
		if !strings.Contains(tf, w) {
			t.Errorf("TensorFlow advice lacks %q:\n%s", w, tf)
		}
	}
	for _, w := range []string{"XLA_PYTHON_CLIENT", "jax.", "donate_argnums", "PJRT_"} {
		if strings.Contains(tf, w) {
			t.Errorf("TensorFlow advice names %q:\n%s", w, tf)
		}
	}
	if !slices.Equal(copied.Remediation, before) {
		t.Errorf("the copy's advice changed: %q", copied.Remediation)
	}
	// Back to JAX: the prepended step stays, the rest is JAX's again.
	Reframe(&r, grammar.FrameworkJAX)
	if r.Remediation[0] != held || !slices.Equal(r.Remediation[1:], before) {
		t.Errorf("back to JAX:\n%q\nwant %q", r.Remediation[1:], before)
	}
}

// TestReframeWithoutSource: advice read back from attributes has no source: it stays; only the framework is set.
func TestReframeWithoutSource(t *testing.T) {
	r := jaxPoolReport()
	r.AdviceSource = nil
	want := slices.Clone(r.Remediation)
	Reframe(&r, grammar.FrameworkTensorFlow)
	if r.Framework != grammar.FrameworkTensorFlow || !slices.Equal(r.Remediation, want) {
		t.Errorf("framework %q, advice %q", r.Framework, r.Remediation)
	}
	// Advice shorter than its source is not the advice the source rendered: it stays.
	r = jaxPoolReport()
	r.Remediation = r.Remediation[:1]
	want = slices.Clone(r.Remediation)
	Reframe(&r, grammar.FrameworkTensorFlow)
	if !slices.Equal(r.Remediation, want) {
		t.Errorf("cut advice changed: %q", r.Remediation)
	}
}

// TestReframeAllocations: the same framework again costs nothing; another copies the advice once.
func TestReframeAllocations(t *testing.T) {
	r := jaxPoolReport()
	if n := testing.AllocsPerRun(100, func() { Reframe(&r, grammar.FrameworkJAX) }); n != 0 {
		t.Errorf("same framework: %v allocations", n)
	}
	knobbed := 0
	for _, s := range r.AdviceSource {
		if grammar.HasKnob(s) {
			knobbed++
		}
	}
	n := testing.AllocsPerRun(100, func() {
		r.Framework = grammar.FrameworkJAX
		Reframe(&r, grammar.FrameworkTensorFlow)
	})
	if n > float64(1+knobbed) {
		t.Errorf("another framework: %v allocations, want at most %d (the slice and each step with a knob)", n, 1+knobbed)
	}
}

// TestFamilyTextKnobs: a family's own text, written for JAX, renders as written for JAX and names the other
// frameworks' knobs for them.
func TestFamilyTextKnobs(t *testing.T) {
	// families_gpu.go: the advice of a failure outside XLA's pool
	const step = "Leave it more room: lower XLA_PYTHON_CLIENT_MEM_FRACTION (e.g. .70 or .60), or set XLA_PYTHON_CLIENT_PREALLOCATE=false so XLA allocates on demand."
	src := KnobsOf(step)
	if got := grammar.RenderKnobs(src, grammar.FrameworkJAX); got != step {
		t.Errorf("JAX: %q", got)
	}
	if got := grammar.RenderKnobs(src, grammar.FrameworkPyTorchXLA); got != "Leave it more room: lower PJRT_ALLOCATOR_FRACTION (e.g. .70 or .60), or set PJRT_ALLOCATOR_PREALLOCATE=false so XLA allocates on demand." {
		t.Errorf("PyTorch/XLA: %q", got)
	}
	if got := grammar.RenderKnobs(src, grammar.FrameworkTensorFlow); strings.Contains(got, "XLA_PYTHON_CLIENT") || !strings.Contains(got, "set_memory_growth") {
		t.Errorf("TensorFlow: %q", got)
	}
	if plain := "Capture a profile."; KnobsOf(plain) != plain {
		t.Error("a step without a knob changed")
	}
}
