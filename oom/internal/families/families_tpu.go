// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// TPU families: the compiler's statuses (E1000, E1001, E3000), the runtime's buffer and program-load failures.
var tpuFamilies = []grammar.Family{
	{
		ID:      "tpu-compile-hbm-used",
		Summary: "The compiled program needs more of a memory space (HBM, or VMEM/SMEM) than the chip has.",
		Kind:    grammar.Fatal, Code: grammar.CodeHbm, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		// Anchored at the rare "y" of "memory": strings.Index skips to its first byte at vector speed.
		Anchor: "y in memory space",
		Expr: `[Rr]an out of memory in memory space (?P<space>\w+)\.? Used ` + grammar.SizeGroup("used") + `(?: of ` + grammar.SizeGroup("capacity") +
			`(?: \w+)?\.?(?: Exceeded \w+ capacity by ` + grammar.SizeGroup("exceeded") + `)?)?`,
		Read:    vmemUnlessHBM,
		Cues:    []logtext.Cue{{Text: "Ran out of memory"}},
		Example: `RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.`,
	},
	{
		ID:      "tpu-compile-early-abort",
		Summary: "The compiler estimated the program cannot fit and stopped before the full memory assignment.",
		Kind:    grammar.Fatal, Code: grammar.CodeHbm, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor: "Aborting compilation early",
		Expr:   `Aborting compilation early because it.?s unlikely to have enough memory\.? Requires ` + grammar.SizeGroup("requested") + `(?:,? has ` + grammar.SizeGroup("capacity") + ` available)?`,
		Read: func(r *grammar.Report, _ grammar.Match) bool {
			// "has X available" is both free and, for the compiler, capacity.
			r.Free = r.Capacity
			return true
		},
		Cues:   []logtext.Cue{{Text: "Requires #"}},
		Advice: grammar.AdviceTraits{Note: "Compilation stopped early; to see which buffers make up the peak, rerun with --xla_tpu_impure_oom_fast_exit_threshold=-1 so it fails later with the full breakdown.", NoteAction: grammar.ActionInvestigate},
		Example: `RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely to have enough memory. ` +
			`Requires 3.84T, has 90.96G available. If more detailed logging is desired, set --xla_tpu_impure_oom_fast_exit_threshold=-1`,
	},
	{
		ID:      "tpu-compile-hlo-temporaries",
		Summary: "The program's HLO temporaries need more HBM than is available (the 2026 wording of the compiler's HBM overflow).",
		Kind:    grammar.Fatal, Code: grammar.CodeHbm, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor: "required for HLO temporaries",
		// jax's test (tests/memories_test.py, test_oom) pins only "(.*)" around each size: the parentheses are taken
		// whole (one nested level too) and a size is read only where their content is one size token. As
		// tpu-compile-early-abort: available HBM is capacity and free.
		Expr: `Ran out of memory on HBM,? the total memory required for HLO temporaries \((?P<requested>` + parenContent +
			`)\)(?: exceeds available HBM(?: \((?P<capacity>` + parenContent + `)\))?)?`,
		Read: func(r *grammar.Report, _ grammar.Match) bool {
			r.MemorySpace = "hbm"
			r.Free = r.Capacity
			return true
		},
		Cues:    []logtext.Cue{{Text: "Ran out of memory"}},
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory required for HLO temporaries (4.00T) exceeds available HBM (15.75G)`,
	},
	{
		ID:      "tpu-compile-tensorcore-sparsecore-hbm",
		Summary: "TensorCore and SparseCore programs together need more HBM than is available.",
		Kind:    grammar.Fatal, Code: grammar.CodeHbm, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor: "TensorCore Hbm usage",
		Expr:   `TensorCore Hbm usage:? ` + grammar.SizeGroup("tensorcore_used") + `,? SparseCore Hbm usage:? ` + grammar.SizeGroup("sparsecore_used") + `,? exceeding available bytes:? ` + grammar.SizeGroup("capacity"),
		Read: func(r *grammar.Report, m grammar.Match) bool {
			r.MemorySpace = "hbm"
			r.Used = grammar.AddSizes(grammar.ParseSizeToken(m.Group("tensorcore_used")), grammar.ParseSizeToken(m.Group("sparsecore_used")))
			return true
		},
		Advice:  grammar.AdviceTraits{Note: "TensorCore and SparseCore programs share HBM: balance them (e.g. --xla_sc_num_serialized_tables_to_optimize_hbm), and check embedding table padding, sharding and maximum_parallel_iterations.", NoteAction: grammar.ActionTuneCompiler},
		Example: `RESOURCE_EXHAUSTED: TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, exceeding available bytes: 95.74G`,
	},
	{
		ID:      "tpu-compile-allocation-exceeds-memory",
		Summary: "One allocation of the compiled program is larger than the whole memory space.",
		Kind:    grammar.Fatal, Code: grammar.CodeHbm, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor:  "Allocation (size=",
		Expr:    `Allocation \(size=(?P<requested>\d+)\) would exceed memory \(size=(?P<capacity>\d+)\)(?: :: #allocation\d+ \[shape = '[^']*', space=(?P<space>\w+))?`,
		Span:    2048, // the shape before space= can be a long tuple
		Read:    vmemUnlessHBM,
		Advice:  grammar.AdviceTraits{Lead: oneAllocationTooLarge, LeadAction: grammar.ActionShard},
		Example: `jaxlib._jax.XlaRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=38654705664) would exceed memory (size=34359738368) :: #allocation598 [...]`,
	},
	{
		ID:      "tpu-compile-vmem-stack",
		Summary: "A kernel's scoped VMEM (or SMEM) stack allocation does not fit.",
		Kind:    grammar.Fatal, Code: grammar.CodeVmem, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor:  "y in memory space", // from the rare "y": see tpu-compile-hbm-used
		Expr:    `[Rr]an out of memory in memory space (?P<space>\w+) while allocating on stack for (?P<instruction>%?[^\s=,]+)`,
		Cues:    []logtext.Cue{{Text: "Ran out of memory"}},
		Example: `RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for %my-custom-kernel = bf16[2048,4096]{1,0:T(8,128)(2,1)} custom-call(...) ...`,
	},
	{
		ID:      "tpu-compile-scoped-vmem",
		Summary: "A kernel's scoped allocation is larger than the scoped VMEM limit.",
		Kind:    grammar.Fatal, Code: grammar.CodeVmem, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor:  "Scoped allocation with size",
		Expr:    `Scoped allocation with size ` + grammar.SizeGroup("requested") + ` and limit ` + grammar.SizeGroup("capacity") + ` exceeded scoped (?P<space>\w+) limit by ` + grammar.SizeGroup("exceeded"),
		Example: `RESOURCE_EXHAUSTED: Scoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M.`,
	},
	{
		ID:      "tpu-runtime-buffer",
		Summary: "The runtime could not allocate a device buffer in HBM.",
		Kind:    grammar.Fatal, Code: grammar.CodeBuffer, Phase: grammar.PhaseRuntime, Backend: grammar.BackendTPU,
		Anchor: "Attempting to allocate",
		Expr: `Attempting to allocate ` + grammar.SizeGroup("requested") + `\.?(?P<not_possible> That was not possible\.?` +
			`(?: There (?:are|is) ` + grammar.SizeGroup("free") + ` free\.?(?:;? ?\((?P<device>[\w:.\-]+)\))?)?)?`,
		Read: func(_ *grammar.Report, m grammar.Match) bool {
			// Cut short, it is still this message after the buffer error or inside "That was not possible"
			// (checked here: an optional text before the anchor makes every match try many starts).
			return m.Took("not_possible") || strings.HasSuffix(m.Text[:m.Start()], "Error allocating device buffer: ") ||
				grammar.CutInside(m, " That was not possible.")
		},
		Cues:    []logtext.Cue{{Text: "_HBM"}},
		Example: `ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)`,
	},
	{
		ID:      "tpu-runtime-program-load",
		Summary: "Loading a compiled program into HBM failed: no room to reserve its memory.",
		Kind:    grammar.Fatal, Code: grammar.CodeProgram, Phase: grammar.PhaseRuntime, Backend: grammar.BackendTPU,
		Anchor: "Attempting to reserve",
		Expr: `Attempting to reserve ` + grammar.SizeGroup("requested") + `(?P<bottom> at the bottom of memory\.?(?: That was not possible\.?(?: There (?:are|is) ` + grammar.SizeGroup("free") +
			` free(?:,? ` + grammar.SizeGroup("reserved") + ` reserved(?:,? and ` + grammar.SizeGroup("reservable") + ` reservable)?)?)?)?)?`,
		Read: func(_ *grammar.Report, m grammar.Match) bool {
			// Cut short, it is still this message inside the reservation sentence.
			return m.Took("bottom") || grammar.CutInside(m, " at the bottom of memory.")
		},
		Example: `RESOURCE_EXHAUSTED: Attempting to reserve 6.48G at the bottom of memory. That was not possible. There are 6.78G free, 0B reserved, and 3.33G reservable.`,
	},
	{
		ID:      "tpu-compile-sparsecore-offset",
		Summary: "A SparseCore allocation reaches past the allocatable offset (figures in words).",
		Kind:    grammar.Fatal, Code: grammar.CodeSparseCore, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor: "words) exceeds the legitimate",
		Expr: `current allocation offset upper bound \((?P<offset_words>\d+) words\) exceeds the legitimate user allocatable offset upper bound \((?P<limit_words>\d+) words\)` +
			`(?: in memory space (?P<space_id>\d+))?(?: when allocating (?P<requested_words>\d+) words)?`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			// Words of an unprinted size: no byte size is set.
			r.Words = grammar.SparseCoreWords{Offset: logtext.Atoi(m.Group("offset_words")), Limit: logtext.Atoi(m.Group("limit_words")), Requested: logtext.Atoi(m.Group("requested_words"))}
			r.MemorySpace = sparseCoreSpace(m.Group("space_id"))
			return true
		},
		Cues: []logtext.Cue{logtext.InternalMemoryCue},
		Example: `RESOURCE_EXHAUSTED: 'memref.alloca' op current allocation offset upper bound (9000000 words) exceeds the legitimate user allocatable offset upper bound ` +
			`(8388607 words) in memory space 203 when allocating 1048576 words.`,
	},
}

// vmemUnlessHBM: the on-chip memories (vmem, smem) have their own code.
func vmemUnlessHBM(r *grammar.Report, _ grammar.Match) bool {
	if r.MemorySpace != "" && r.MemorySpace != "hbm" {
		r.Code = grammar.CodeVmem
	}
	return true
}

func oneAllocationTooLarge(r *grammar.Report) string {
	need := r.Used
	if !need.Known {
		need = r.Requested
	}
	if grammar.Ratio(need, r.Capacity) <= 0 {
		return ""
	}
	return "One allocation of " + grammar.HumanSize(r.Requested) + " alone exceeds the " + grammar.HumanSize(r.Capacity) +
		" memory: check that this array is sharded as intended (mesh axes, sharding constraints) rather than replicated or gathered, and that no jax.debug.print materializes it."
}

// sparseCoreSpaces name the SparseCore memory space ids (E3000 doc).
var sparseCoreSpaces = map[string]string{"0": "smem", "201": "tilespmem", "202": "spmem", "203": "hbm", "204": "sync_flags"}

// sparseCoreSpace names a space id; an unknown id is kept as printed.
func sparseCoreSpace(id string) string {
	if s, ok := sparseCoreSpaces[id]; ok {
		return s
	}
	return id
}

// parenContent is what parentheses hold, one nested level included ("(4.00T (4398046511104 bytes))").
const parenContent = `[^()]*(?:\([^()]*\)[^()]*)*`

// TPU messages with no sizes, tried after the sized families; a program load cut before its first size is not
// read: its words alone do not say it failed.
var tpuSizelessFamilies = []grammar.Family{
	{
		ID:      "tpu-compile-out-of-memory-no-sizes",
		Summary: "The compiler ran out of a memory space (HBM, VMEM, SMEM) and printed no sizes.",
		Kind:    grammar.Fatal, Code: grammar.CodeHbm, Phase: grammar.PhaseCompile, Backend: grammar.BackendTPU,
		Anchor: "y in memory space", // from the rare "y": see tpu-compile-hbm-used
		// The period, then anything but the sized family's "Used", or the end: failing in the expression keeps
		// sized records free of a second match.
		Expr: `[Rr]an out of memory in memory space (?P<space>\w+)(?P<stop>\.(?: [^U]|$)|$)`,
		// A short window keeps the run cheap on every sized message.
		Span: 64,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			// A space name that ends the text may be cut ("hb"): only a whole known name decides the code.
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
		// Anchored on its last words: a regexp run costs about half a microsecond even failing.
		Anchor: "Fatal error",
		Expr:   `Error loading program(?: '[^']{0,160}')?: Fatal error`,
		Read: func(_ *grammar.Report, m grammar.Match) bool {
			// Only a resource-exhausted status a little before (XRT's "From /job:...:" between) makes it an OOM.
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
