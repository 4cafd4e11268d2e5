// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// TPU families: the compiler's out-of-memory statuses (E1000, E1001, E3000)
// and the runtime's buffer and program-load failures (E0100, E0101).
// docs/message-formats.md lists them with their grammar and an example.

var tpuFamilies = []family{
	{
		id:      "tpu-compile-hbm-used",
		summary: "The compiled program needs more of a memory space (HBM, or VMEM/SMEM) than the chip has.",
		kind:    fatal, code: codeHbm, phase: PhaseCompile, backend: BackendTPU,
		// The anchor starts at the "y" of "memory" on purpose: strings.Index
		// skips to the anchor's first byte at vector speed, and "y" is far
		// rarer in log text than the "a" or "m" a whole word would start with.
		anchor: "y in memory space",
		expr: `[Rr]an out of memory in memory space (?P<space>\w+)\.? Used ` + sizeGroup("used") + `(?: of ` + sizeGroup("capacity") +
			`(?: \w+)?\.?(?: Exceeded \w+ capacity by ` + sizeGroup("exceeded") + `)?)?`,
		read:    vmemUnlessHBM,
		cues:    []cue{{text: "Ran out of memory"}},
		example: `RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.`,
	},
	{
		id:      "tpu-compile-early-abort",
		summary: "The compiler estimated the program cannot fit and stopped before the full memory assignment.",
		kind:    fatal, code: codeHbm, phase: PhaseCompile, backend: BackendTPU,
		anchor: "Aborting compilation early",
		expr:   `Aborting compilation early because it.?s unlikely to have enough memory\.? Requires ` + sizeGroup("requested") + `(?:,? has ` + sizeGroup("capacity") + ` available)?`,
		read: func(r *Report, _ match) bool {
			// "has X available": what the device has free for the program
			// (xla.oom.free.size) and, for the compiler, its capacity.
			r.Free = r.Capacity
			return true
		},
		cues:   []cue{{text: "Requires #"}},
		advice: adviceTraits{note: "Compilation stopped early; to see which buffers make up the peak, rerun with --xla_tpu_impure_oom_fast_exit_threshold=-1 so it fails later with the full breakdown.", noteAction: ActionInvestigate},
		example: `RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely to have enough memory. ` +
			`Requires 3.84T, has 90.96G available. If more detailed logging is desired, set --xla_tpu_impure_oom_fast_exit_threshold=-1`,
	},
	{
		id:      "tpu-compile-tensorcore-sparsecore-hbm",
		summary: "TensorCore and SparseCore programs together need more HBM than is available.",
		kind:    fatal, code: codeHbm, phase: PhaseCompile, backend: BackendTPU,
		anchor: "TensorCore Hbm usage",
		expr:   `TensorCore Hbm usage:? ` + sizeGroup("tensorcore_used") + `,? SparseCore Hbm usage:? ` + sizeGroup("sparsecore_used") + `,? exceeding available bytes:? ` + sizeGroup("capacity"),
		read: func(r *Report, m match) bool {
			r.MemorySpace = "hbm"
			r.Used = addSizes(parseSizeToken(m.group("tensorcore_used")), parseSizeToken(m.group("sparsecore_used")))
			return true
		},
		advice:  adviceTraits{note: "TensorCore and SparseCore programs share HBM: balance them (e.g. --xla_sc_num_serialized_tables_to_optimize_hbm), and check embedding table padding, sharding and maximum_parallel_iterations.", noteAction: ActionTuneCompiler},
		example: `RESOURCE_EXHAUSTED: TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, exceeding available bytes: 95.74G`,
	},
	{
		id:      "tpu-compile-allocation-exceeds-memory",
		summary: "One allocation of the compiled program is larger than the whole memory space.",
		kind:    fatal, code: codeHbm, phase: PhaseCompile, backend: BackendTPU,
		anchor:  "Allocation (size=",
		expr:    `Allocation \(size=(?P<requested>\d+)\) would exceed memory \(size=(?P<capacity>\d+)\)(?: :: #allocation\d+ \[shape = '[^']*', space=(?P<space>\w+))?`,
		span:    2048, // the shape before space= can be a long tuple
		read:    vmemUnlessHBM,
		advice:  adviceTraits{lead: oneAllocationTooLarge, leadAction: ActionShard},
		example: `jaxlib._jax.XlaRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=38654705664) would exceed memory (size=34359738368) :: #allocation598 [...]`,
	},
	{
		id:      "tpu-compile-vmem-stack",
		summary: "A kernel's scoped VMEM (or SMEM) stack allocation does not fit.",
		kind:    fatal, code: codeVmem, phase: PhaseCompile, backend: BackendTPU,
		anchor:  "y in memory space", // from the rare "y": see tpu-compile-hbm-used
		expr:    `[Rr]an out of memory in memory space (?P<space>\w+) while allocating on stack for (?P<instruction>%?[^\s=,]+)`,
		cues:    []cue{{text: "Ran out of memory"}},
		example: `RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for %my-custom-kernel = bf16[2048,4096]{1,0:T(8,128)(2,1)} custom-call(...) ...`,
	},
	{
		id:      "tpu-compile-scoped-vmem",
		summary: "A kernel's scoped allocation is larger than the scoped VMEM limit.",
		kind:    fatal, code: codeVmem, phase: PhaseCompile, backend: BackendTPU,
		anchor:  "Scoped allocation with size",
		expr:    `Scoped allocation with size ` + sizeGroup("requested") + ` and limit ` + sizeGroup("capacity") + ` exceeded scoped (?P<space>\w+) limit by ` + sizeGroup("exceeded"),
		example: `RESOURCE_EXHAUSTED: Scoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M.`,
	},
	{
		id:      "tpu-runtime-buffer",
		summary: "The runtime could not allocate a device buffer in HBM.",
		kind:    fatal, code: codeBuffer, phase: PhaseRuntime, backend: BackendTPU,
		anchor: "Attempting to allocate",
		expr: `Attempting to allocate ` + sizeGroup("requested") + `\.?(?P<not_possible> That was not possible\.?` +
			`(?: There (?:are|is) ` + sizeGroup("free") + ` free\.?(?:;? ?\((?P<device>[\w:.\-]+)\))?)?)?`,
		read: func(_ *Report, m match) bool {
			// Cut short, the message is still this one when it names the
			// buffer error or stops inside "That was not possible".
			// (The prefix is checked here, not in the expression: an optional
			// text before the anchor would make every match try many starts.)
			return m.took("not_possible") || strings.HasSuffix(m.text[:m.start()], "Error allocating device buffer: ") ||
				cutInside(m, " That was not possible.")
		},
		cues:    []cue{{text: "_HBM"}},
		example: `ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)`,
	},
	{
		id:      "tpu-runtime-program-load",
		summary: "Loading a compiled program into HBM failed: no room to reserve its memory.",
		kind:    fatal, code: codeProgram, phase: PhaseRuntime, backend: BackendTPU,
		anchor: "Attempting to reserve",
		expr: `Attempting to reserve ` + sizeGroup("requested") + `(?P<bottom> at the bottom of memory\.?(?: That was not possible\.?(?: There (?:are|is) ` + sizeGroup("free") +
			` free(?:,? ` + sizeGroup("reserved") + ` reserved(?:,? and ` + sizeGroup("reservable") + ` reservable)?)?)?)?)?`,
		read: func(_ *Report, m match) bool {
			// Cut short, the message is still this one when the reservation
			// sentence is there or the text stops inside it.
			return m.took("bottom") || cutInside(m, " at the bottom of memory.")
		},
		example: `RESOURCE_EXHAUSTED: Attempting to reserve 6.48G at the bottom of memory. That was not possible. There are 6.78G free, 0B reserved, and 3.33G reservable.`,
	},
	{
		id:      "tpu-compile-sparsecore-offset",
		summary: "A SparseCore allocation reaches past the allocatable offset (figures in words).",
		kind:    fatal, code: codeSparseCore, phase: PhaseCompile, backend: BackendTPU,
		anchor: "words) exceeds the legitimate",
		expr: `current allocation offset upper bound \((?P<offset_words>\d+) words\) exceeds the legitimate user allocatable offset upper bound \((?P<limit_words>\d+) words\)` +
			`(?: in memory space (?P<space_id>\d+))?(?: when allocating (?P<requested_words>\d+) words)?`,
		read: func(r *Report, m match) bool {
			// Words of an unprinted size: no byte size is set.
			r.Words = SparseCoreWords{Offset: atoi(m.group("offset_words")), Limit: atoi(m.group("limit_words")), Requested: atoi(m.group("requested_words"))}
			r.MemorySpace = sparseCoreSpace(m.group("space_id"))
			return true
		},
		cues: []cue{internalMemoryCue},
		example: `RESOURCE_EXHAUSTED: 'memref.alloca' op current allocation offset upper bound (9000000 words) exceeds the legitimate user allocatable offset upper bound ` +
			`(8388607 words) in memory space 203 when allocating 1048576 words.`,
	},
}

// vmemUnlessHBM: the compiler's on-chip memories (vmem, smem) have their own
// code.
func vmemUnlessHBM(r *Report, _ match) bool {
	if r.MemorySpace != "" && r.MemorySpace != "hbm" {
		r.Code = codeVmem
	}
	return true
}

// oneAllocationTooLarge is the first step when a single allocation exceeds
// the memory it was assigned to.
func oneAllocationTooLarge(r *Report) string {
	need := r.Used
	if !need.Known {
		need = r.Requested
	}
	if ratio(need, r.Capacity) <= 0 {
		return ""
	}
	return "One allocation of " + humanSize(r.Requested) + " alone exceeds the " + humanSize(r.Capacity) +
		" memory: check that this array is sharded as intended (mesh axes, sharding constraints) rather than replicated or gathered, and that no jax.debug.print materializes it."
}

// sparseCoreSpace names a SparseCore memory space id (E3000 doc); an unknown
// id is kept as printed.
func sparseCoreSpace(id string) string {
	switch id {
	case "0":
		return "smem"
	case "201":
		return "tilespmem"
	case "202":
		return "spmem"
	case "203":
		return "hbm"
	case "204":
		return "sync_flags"
	}
	return id
}
