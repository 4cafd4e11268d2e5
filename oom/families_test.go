// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"slices"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// familyIDs is every family id: the entries of the table and the code
// printed without a message.
func familyIDs() []string {
	ids := []string{grammar.FamilyCodeOnly}
	eachEntry(func(e entryView) { ids = append(ids, e.id) })
	return ids
}

// entryView is what the tests read of any entry, failure or warning.
type entryView struct {
	id, summary, example string
	pattern              *grammar.Pattern
}

// eachEntry calls fn with every entry of the default recogniser, failures
// first.
func eachEntry(fn func(e entryView)) {
	z := defaultRecognizer
	for i := range z.Families {
		f := &z.Families[i]
		fn(entryView{f.ID, f.Summary, f.Example, &f.Pattern})
	}
	for i := range z.Warnings {
		w := &z.Warnings[i]
		fn(entryView{w.ID, w.Summary, w.Example, &w.Pattern})
	}
}

// TestEveryFamilyHasFixture: a family without a real fixture is untested
// grammar. Warning entries are not OOMs; their fixtures are the look-alikes.
func TestEveryFamilyHasFixture(t *testing.T) {
	covered := map[string]int{}
	for _, f := range fixtures {
		covered[f.want.family]++
	}
	for i := range defaultRecognizer.Families {
		f := &defaultRecognizer.Families[i]
		if covered[f.ID] == 0 {
			t.Errorf("family %s has no fixture in fixtures_test.go: add a real message of it", f.ID)
		}
	}
	if covered[grammar.FamilyCodeOnly] == 0 {
		t.Errorf("family %s has no fixture", grammar.FamilyCodeOnly)
	}
	for id := range covered {
		if !slices.Contains(familyIDs(), id) {
			t.Errorf("a fixture expects family %q, which is not registered", id)
		}
	}
}

// TestFamilyFixturesPassPrefilter: every fixture of every family passes
// MayContain, so the processor never skips a message the recogniser reads.
func TestFamilyFixturesPassPrefilter(t *testing.T) {
	for _, f := range fixtures {
		if !MayContain(f.body(t)) {
			t.Errorf("family %s: fixture %q does not pass MayContain: give the family a cue (family.cues)", f.want.family, f.name)
		}
	}
}

// TestFamilyExamples: the example the docs show is one of the family's own
// fixtures, passes the prefilter and is recognised as that family. (A
// warning entry's example is checked by TestWarningFamilyExamples.)
func TestFamilyExamples(t *testing.T) {
	eachEntry(func(e entryView) {
		if e.example == "" {
			t.Errorf("%s: no example", e.id)
		}
	})
	for i := range defaultRecognizer.Families {
		f := &defaultRecognizer.Families[i]
		t.Run(f.ID, func(t *testing.T) {
			found := false
			for _, fx := range fixtures {
				if fx.want.family == f.ID && fx.text != "" && fx.text == f.Example {
					found = true
				}
			}
			if !found {
				t.Errorf("the example is not the text of a fixture of this family")
			}
			if !MayContain(f.Example) {
				t.Errorf("the example does not pass MayContain")
			}
			if r, ok := Recognize(f.Example); !ok || r.Family != f.ID {
				t.Errorf("the example is recognised as %q (ok %v)", r.Family, ok)
			}
		})
	}
}

// TestFamilyEntries checks what newRecognizer cannot: a readable summary,
// and a span that lets the expression reach past its anchor.
func TestFamilyEntries(t *testing.T) {
	eachEntry(func(f entryView) {
		if f.summary == "" || !strings.HasSuffix(f.summary, ".") {
			t.Errorf("family %s: the summary must be one sentence", f.id)
		}
		if f.pattern.Lead < 0 || f.pattern.Lead > 512 {
			t.Errorf("family %s: computed lead %d", f.id, f.pattern.Lead)
		}
		if strings.ContainsAny(f.id, " _ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Errorf("family %s: ids are lower-case words joined by hyphens", f.id)
		}
	})
}

// TestLookalikeClasses: every class of look-alike has a negative, every
// negative a declared class, and every guard phrase of the grammar is
// exercised by one.
func TestLookalikeClasses(t *testing.T) {
	count := map[string]int{}
	all := ""
	for _, l := range lookalikes {
		count[l.class]++
		all += l.text + "\n"
		if !slices.Contains(lookalikeClasses, l.class) {
			t.Errorf("look-alike %q: class %q is not in lookalikeClasses", l.name, l.class)
		}
	}
	for _, c := range lookalikeClasses {
		if count[c] == 0 {
			t.Errorf("look-alike class %q has no negative", c)
		}
	}
	for _, p := range details.Guards {
		if !strings.Contains(all, p) {
			t.Errorf("no look-alike exercises %q", p)
		}
	}
}

// Families of the recognition classes (shapes_test.go, variations_test.go).
const (
	famNoSizes       = "tpu-compile-out-of-memory-no-sizes"
	famProgramFatal  = "tpu-runtime-program-load-fatal"
	famKernelLaunch  = "gpu-driver-kernel-launch"
	famModuleLoad    = "gpu-driver-module-load"
	famContextInit   = "gpu-driver-context-init"
	famUnified       = "gpu-driver-unified-memory"
	famConstant      = "gpu-runtime-constant-allocation"
	famTFTensor      = "tensorflow-op-tensor-allocation"
	famTFAllocFailed = "tensorflow-op-allocation-failed"
	famUnifiedLog    = "gpu-driver-unified-memory-log"
)

// Families the recognition classes extend.
const (
	famEarlyAbort        = "tpu-compile-early-abort"
	famBuffer            = "tpu-runtime-buffer"
	famProgramLoad       = "tpu-runtime-program-load"
	famGPUAllocator      = "gpu-allocator-status"
	famPlatformAllocator = "gpu-platform-allocator"
	famAsyncAllocator    = "gpu-cuda-async-allocator"
)

// Categories of the families that refine E0007's catalog category.
const (
	catKernelLaunch = "GPU Driver: Kernel Launch Out of Memory"
	catModuleLoad   = "GPU Driver: Module Load Out of Memory"
	catContextInit  = "GPU Driver: Device Initialization Out of Memory"
	catUnified      = "GPU Driver: Unified Memory Allocation Failure"
	catConstant     = "GPU Runtime: Constant Allocation Failure"
	catTensorFlow   = "TensorFlow Op: Tensor Allocation Failure"
)

// refinedCategory is the xla.error.category of the families here that
// refine E0007's catalog category with what failed; the others report their
// code's catalog category.
var refinedCategory = map[string]string{
	famKernelLaunch: catKernelLaunch, famModuleLoad: catModuleLoad, famContextInit: catContextInit,
	famUnified: catUnified, famUnifiedLog: catUnified, famConstant: catConstant,
	famTFTensor: catTensorFlow, famTFAllocFailed: catTensorFlow,
}
