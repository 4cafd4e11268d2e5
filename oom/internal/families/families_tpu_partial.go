// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// TPU messages that carry no sizes, tried after the sized families so that
// a full message is read by those. A program load cut before its first size
// is not read: its words alone do not say it failed.

var tpuSizelessFamilies = []grammar.Family{
	{
		ID:      "tpu-compile-out-of-memory-no-sizes",
		Summary: "The compiler ran out of a memory space (HBM, VMEM, SMEM) and printed no sizes.",
		Kind:    grammar.Fatal, Code: grammar.CodeHbm, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor: "y in memory space", // from the rare "y": see tpu-compile-hbm-used
		// The period, then anything but the sized family's "Used", or the
		// end (not the VMEM stack family's " while allocating"): failing in
		// the expression keeps sized records free of a second match.
		Expr: `[Rr]an out of memory in memory space (?P<space>\w+)(?P<stop>\.(?: [^U]|$)|$)`,
		// A short window keeps the run cheap on every sized message.
		Span: 64,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			// A space name that ends the text may be cut ("hb" of "hbm"):
			// only a whole known name says which code applies.
			if m.Group("stop") == "" && !knownMemorySpaces[r.MemorySpace] {
				return false
			}
			return vmemUnlessHBM(r, m)
		},
		Cues:    []logtext.Cue{{Text: "Ran out of memory"}},
		Example: `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. It should not be possible to run out of vmem - please file a bug against XLA.`,
	},
	{
		ID:      "tpu-runtime-program-load-fatal",
		Summary: "Loading a compiled program into HBM failed and the runtime printed no sizes, only \"Fatal error\".",
		Kind:    grammar.Fatal, Code: grammar.CodeProgram, Phase: grammar.PhaseRuntime, Backend: grammar.BackendTPU,
		// Anchored on its last words, so the expression runs only on this
		// message (a regexp run costs about half a microsecond even failing).
		Anchor: "Fatal error",
		Expr:   `Error loading program(?: '[^']{0,160}')?: Fatal error`,
		Read: func(_ *grammar.Report, m grammar.Match) bool {
			// Only a resource-exhausted status a little before (XRT's "From
			// /job:...:" comes between) makes it a memory failure.
			return resourceExhaustedWithin(m.Text[max(0, m.Start()-programStatusSpan):m.Start()])
		},
		Example: `RuntimeError: RESOURCE_EXHAUSTED: Error loading program: Fatal error`,
	},
}

var knownMemorySpaces = map[string]bool{"hbm": true, "vmem": true, "smem": true}

// programStatusSpan bounds how far before the message its status may start.
const programStatusSpan = 120

// resourceExhaustedWithin: a resource-exhausted status in before's last sentence.
func resourceExhaustedWithin(before string) bool {
	if i := strings.LastIndex(before, ". "); i >= 0 {
		before = before[i+2:]
	}
	return strings.Contains(before, "RESOURCE_EXHAUSTED") || strings.Contains(before, "Resource exhausted")
}
