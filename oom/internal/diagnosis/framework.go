// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// References to the knob table, for the advice rows' texts.
var (
	knobPoolShare      = grammar.KnobRef(grammar.KnobPoolShare)
	knobMoreShare      = grammar.KnobRef(grammar.KnobMoreShare)
	knobGrowOnDemand   = grammar.KnobRef(grammar.KnobGrowOnDemand)
	knobPreallocate    = grammar.KnobRef(grammar.KnobPreallocate)
	knobAsyncAllocator = grammar.KnobRef(grammar.KnobAsyncAllocator)
	knobExactAllocator = grammar.KnobRef(grammar.KnobExactAllocator)
	knobRemat          = grammar.KnobRef(grammar.KnobRemat)
	knobLowPrecision   = grammar.KnobRef(grammar.KnobLowPrecision)
	knobDonate         = grammar.KnobRef(grammar.KnobDonate)
	knobDonateInList   = grammar.KnobRef(grammar.KnobDonateInList)
	knobDelete         = grammar.KnobRef(grammar.KnobDelete)
	knobLiveArrays     = grammar.KnobRef(grammar.KnobLiveArrays)
	knobName           = grammar.KnobRef(grammar.KnobName)
)

// familyKnobs reads the JAX settings a family's own text names as knob references: those texts are written for
// JAX, and render for JAX exactly as written.
var familyKnobs = strings.NewReplacer(
	"XLA_PYTHON_CLIENT_MEM_FRACTION", knobPoolShare,
	"XLA_PYTHON_CLIENT_PREALLOCATE=false", knobGrowOnDemand,
	"XLA_PYTHON_CLIENT_PREALLOCATE=true", knobPreallocate,
	"XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async", knobAsyncAllocator,
	"before JAX", "before "+knobName,
)

// KnobsOf is a family's advice step with the JAX settings it names as knob references.
func KnobsOf(step string) string {
	if !strings.Contains(step, "XLA_PYTHON_CLIENT_") && !strings.Contains(step, "before JAX") {
		return step // the common case: no copy
	}
	return familyKnobs.Replace(step)
}

// render renders the steps' sources for framework, in a new slice.
func render(sources []string, framework string) []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = renderStep(s, framework)
	}
	return out
}

// prerendered holds the constant steps' renderings, made once as the tables are built: read only after.
var prerendered = map[string]*[len(renderedFrameworks)]string{}

var renderedFrameworks = [...]string{grammar.FrameworkJAX, grammar.FrameworkTensorFlow, grammar.FrameworkPyTorchXLA, ""}

// prerender renders a constant step with knobs for every framework, so that advice does not render it again.
func prerender(source string) {
	if !grammar.HasKnob(source) {
		return
	}
	var r [len(renderedFrameworks)]string
	for i, f := range renderedFrameworks {
		r[i] = grammar.RenderKnobs(source, f)
	}
	prerendered[source] = &r
}

// renderStep is grammar.RenderKnobs that takes a constant step's rendering from prerendered.
func renderStep(source, framework string) string {
	if !grammar.HasKnob(source) {
		return source
	}
	if r, ok := prerendered[source]; ok {
		switch framework {
		case grammar.FrameworkJAX:
			return r[0]
		case grammar.FrameworkTensorFlow:
			return r[1]
		case grammar.FrameworkPyTorchXLA:
			return r[2]
		}
		return r[3]
	}
	return grammar.RenderKnobs(source, framework)
}

// Reframe renders r's advice again for framework ("" for unknown) and sets r.Framework, without the record's
// text: from r.AdviceSource. Steps before the sources' (a caller's own, prepended) stay as they are; a report
// whose advice has no source (read back from attributes) keeps its advice.
func Reframe(r *grammar.Report, framework string) {
	if r.Framework == framework {
		return
	}
	r.Framework = framework
	src := r.AdviceSource
	k := len(r.Remediation) - len(src)
	if k < 0 {
		return // not the advice the sources were rendered to
	}
	var out []string // a new slice: copies of the report share the old one
	for i, s := range src {
		if !grammar.HasKnob(s) {
			continue
		}
		if out == nil {
			out = slices.Clone(r.Remediation)
		}
		out[k+i] = renderStep(s, framework)
	}
	if out != nil {
		r.Remediation = out
	}
}
