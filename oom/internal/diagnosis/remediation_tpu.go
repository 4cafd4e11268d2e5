// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"math"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// E1000: the compiled program does not fit in HBM; how far over decides.
var compileHbmAdvice = AdviceTable{
	LeadRow,
	{Name: "2× or more over: shard", Action: grammar.ActionShard, When: farOver, Say: func(c AdviceCase) string {
		x := compileHbmRatio(c)
		return "The program needs " + grammar.HumanSize(CompileHbmNeed(c)) + " and the device has " + grammar.HumanSize(c.R.Capacity) + ": shrink the footprint by " + FmtRatio(x) +
			" or shard it over at least " + strconv.FormatInt(int64(math.Ceil(x)), 10) + " devices; flags alone will not close a gap this large."
	}},
	{Name: "2× or more over: cut the batch", Action: grammar.ActionShrinkFootprint, When: farOver, Say: func(c AdviceCase) string {
		return "Cut the per-device batch size (by about " + FmtRatio(compileHbmRatio(c)) + "), or use microbatching / gradient accumulation."
	}},
	{Name: "over by more than 15%", Action: grammar.ActionShrinkFootprint, When: wellOver, Say: func(c AdviceCase) string {
		x := compileHbmRatio(c)
		return "The program needs " + grammar.HumanSize(CompileHbmNeed(c)) + " and the device has " + grammar.HumanSize(c.R.Capacity) + " (" + FmtRatio(x) +
			"): reduce the batch size by at least " + FmtRatio(x) + ", keep large tensors in " + knobLowPrecision + " (or quantize them), or shard parameters and optimizer state over at least " +
			strconv.FormatInt(int64(math.Ceil(x)), 10) + " devices."
	}},
	{Name: "just over: rematerialize", Action: grammar.ActionRematerialize, When: justOver, Say: func(c AdviceCase) string {
		r, x := c.R, compileHbmRatio(c)
		over := CompileHbmNeed(c).Bytes - r.Capacity.Bytes
		if r.Exceeded.Known {
			over = r.Exceeded.Bytes // the exact figure, not a difference of rounded ones
		}
		pct := strconv.FormatFloat((x-1)*100, 'f', 1, 64)
		return "The program is only " + grammar.HumanBytes(over) + " (" + pct + "%) over the " + grammar.HumanSize(r.Capacity) +
			" available: let rematerialization work harder, e.g. --xla_tpu_rematerialization_algo=PEAK_PRIORITY and --xla_tpu_max_hbm_size_mib=" +
			strconv.FormatInt(r.Capacity.Bytes*9/10>>20, 10) + " (a target below the real capacity), or " + knobRemat + " on the largest layers; sharded over " +
			strconv.FormatInt(int64(math.Ceil(x)), 10) + " devices it fits without either."
	}},
	{Name: "just over: bfloat16", Action: grammar.ActionShrinkFootprint, When: justOver, Say: sayConst("Keep the largest tensors in " + knobLowPrecision + " to win back the last few percent.")},
	NoteRow,
	{Name: "sizes not known", Action: grammar.ActionShrinkFootprint, When: func(c AdviceCase) bool { return compileHbmRatio(c) == 0 },
		Say: sayConst("Reduce the batch size, keep large tensors in " + knobLowPrecision + ", and shard parameters and optimizer state over more chips.")},
	{Name: "donate", Action: grammar.ActionReleaseBuffers, When: always,
		Say: sayConst(knobDonate + ": parameters and optimizer state above all.")},
	{Name: "remat or offload", Action: grammar.ActionRematerialize, When: always,
		Say: sayConst("Trade compute for memory: " + knobRemat + " on large blocks, or offload activations or optimizer state to host memory.")},
	{Name: "largest allocations printed", Action: grammar.ActionInvestigate, When: flatHas("Largest program allocations"),
		Say: sayConst("The breakdown printed with the error lists the largest allocations: start with those (shape, padding, operator).")},
	{Name: "memory viewer", Action: grammar.ActionInvestigate, When: always,
		Say: sayConst("Capture a profile and open XProf's Memory Viewer to see which buffers are live at the peak.")},
}

// CompileHbmNeed is what the program needs: what it uses, else the request.
func CompileHbmNeed(c AdviceCase) grammar.Size {
	if c.R.Used.Known {
		return c.R.Used
	}
	return c.R.Requested
}

// compileHbmRatio is need / capacity, 0 when either is unknown.
func compileHbmRatio(c AdviceCase) float64 { return grammar.Ratio(CompileHbmNeed(c), c.R.Capacity) }

func farOver(c AdviceCase) bool  { return compileHbmRatio(c) >= 2 }
func wellOver(c AdviceCase) bool { x := compileHbmRatio(c); return x > 1.15 && x < 2 }
func justOver(c AdviceCase) bool { x := compileHbmRatio(c); return x > 0 && x <= 1.15 }

// E0100: a runtime buffer allocation on the TPU failed.
var runtimeBufferAdvice = AdviceTable{
	LeadRow,
	{Name: "fragmented", Action: grammar.ActionReleaseBuffers, When: fragmented, Say: func(c AdviceCase) string {
		return "HBM is fragmented: " + grammar.HumanSize(c.R.Free) + " is free in total but no single block holds " + grammar.HumanSize(c.R.Requested) +
			". Free buffers you no longer need (" + knobDelete + ") and re-create the large ones together so they pack; the runtime defragments only when it can."
	}},
	{Name: "fragmented: largest first", Action: grammar.ActionReleaseBuffers, When: fragmented,
		Say: sayConst("Allocate the largest long-lived buffers (parameters, optimizer state, caches) first, before many small or short-lived arrays break memory up.")},
	{Name: "exhausted", Action: grammar.ActionShrinkFootprint, When: exhausted, Say: func(c AdviceCase) string {
		r := c.R
		return "The buffer needs " + grammar.HumanSize(r.Requested) + " but only " + grammar.HumanSize(r.Free) + " is free (short by " + grammar.HumanBytes(r.Requested.Bytes-r.Free.Bytes) +
			"): shrink what lives on the device: a smaller batch or sequence length, parameters sharded over more cores (e.g. FSDP)."
	}},
	{Name: "cause not known", Action: grammar.ActionShrinkFootprint, When: causeNotKnown,
		Say: sayConst("Shrink what lives on the device: a smaller batch or sequence length, parameters sharded over more cores (e.g. FSDP).")},
	// Whatever the cause: only the first of these can give the advice's kind.
	steps("any cause", grammar.ActionReleaseBuffers, always,
		knobDonate+".",
		"Look for stale references keeping arrays alive (lists of past outputs, globals); save and restore "+
			"checkpoints sharded instead of gathering the whole state on one device.",
		"Rerun with the libtpu flag tpu_log_allocations_on_oom to get a dump of every live allocation at the moment "+
			"of failure."),
	NoteRow,
}

// E0101: loading a compiled program into HBM failed.
var programLoadAdvice = AdviceTable{
	LeadRow,
	{Name: "fragmented", Action: grammar.ActionReleaseBuffers, When: fragmented, Say: func(c AdviceCase) string {
		return "Loading the program needs " + grammar.HumanSize(c.R.Requested) + " of contiguous HBM; " + grammar.HumanSize(c.R.Free) +
			" is free but not in one piece: free or re-create data buffers so a large block opens up before the program loads."
	}},
	{Name: "exhausted", Action: grammar.ActionShrinkFootprint, When: exhausted, Say: func(c AdviceCase) string {
		r := c.R
		s := "Loading the program needs " + grammar.HumanSize(r.Requested) + " but only " + grammar.HumanSize(r.Free) + " is free"
		if r.Reservable.Known {
			s += " (" + grammar.HumanSize(r.Reservable) + " reservable)"
		}
		return s + ": data buffers take priority over programs, so shrink them (smaller batch, sharded parameters" + knobDonateInList + ")."
	}},
	{Name: "cause not known", Action: grammar.ActionShrinkFootprint, When: causeNotKnown,
		Say: sayConst("Data buffers take priority over loaded programs: shrink them (smaller batch, sharded parameters" + knobDonateInList + ") to leave room for the program.")},
	steps("any cause", grammar.ActionTuneCompiler, always,
		"Cap the HBM programs use for temporaries with the libtpu flag tpu_shared_memory_percent (it can cost speed).",
		"Keep fewer programs loaded at once: every jitted function and every new input shape is its own program.",
		"Release array references you no longer need, and rerun with tpu_log_allocations_on_oom or a memory "+
			"profile to see what holds HBM."),
	NoteRow,
}

// E1001: a kernel's scoped VMEM (or SMEM) does not fit.
var scopedVmemAdvice = AdviceTable{
	LeadRow,
	{Name: "SMEM", Action: grammar.ActionRetileKernel, When: func(c AdviceCase) bool { return scopedSpace(c) == "smem" },
		Say: sayConst("SMEM holds scalars (scalar-prefetch arguments, semaphores, small index tables): pass fewer or smaller scalar arrays, or move large index tables to VMEM or HBM.")},
	{Name: "sizes known: this kernel's limit", Action: grammar.ActionRetileKernel, When: scopedSizesKnown, Say: func(c AdviceCase) string {
		kib := scopedLimitKiB(c)
		return "It needs " + grammar.HumanSize(scopedNeed(c)) + " of scoped " + scopedSpace(c) + " but the limit is " + grammar.HumanSize(c.R.Capacity) +
			": use smaller block sizes (BlockSpec tiles) so each step fits, or raise the limit for this kernel with vmem_limit_bytes=" +
			strconv.FormatInt(kib<<10, 10) + " in the Pallas compiler params."
	}},
	{Name: "sizes known: every kernel's limit", Action: grammar.ActionSetMemoryLimit, When: scopedSizesKnown, Say: func(c AdviceCase) string {
		return "To raise the limit for every kernel instead: --xla_tpu_scoped_vmem_limit_kib=" + strconv.FormatInt(scopedLimitKiB(c), 10) + " (it must stay below the chip's VMEM)."
	}},
	{Name: "sizes not known", Action: grammar.ActionRetileKernel, When: func(c AdviceCase) bool { return !scopedSizesKnown(c) },
		Say: sayConst("Use smaller block sizes (BlockSpec tiles) in the kernel, or raise its limit with vmem_limit_bytes in the Pallas compiler params (globally: --xla_tpu_scoped_vmem_limit_kib).")},
	{Name: "place operands elsewhere", Action: grammar.ActionRetileKernel, When: always, Say: func(c AdviceCase) string {
		return "Place large operands in other memory explicitly (pltpu.with_memory_space_constraint) instead of letting them land in " + scopedSpace(c) + "."
	}},
	{Name: "instruction named", Action: grammar.ActionInvestigate, When: func(c AdviceCase) bool { return c.R.Instruction != "" }, Say: func(c AdviceCase) string {
		return "The failing instruction is " + c.R.Instruction + ": if it is not a custom (Pallas/Mosaic) kernel, running out of scoped memory points to a compiler bug worth reporting to OpenXLA."
	}},
	{Name: "instruction not named", Action: grammar.ActionInvestigate, When: func(c AdviceCase) bool { return c.R.Instruction == "" },
		Say: sayConst("If the failing op is not a custom (Pallas/Mosaic) kernel, running out of scoped memory points to a compiler bug worth reporting to OpenXLA.")},
	NoteRow,
}

func scopedNeed(c AdviceCase) grammar.Size {
	if c.R.Requested.Known {
		return c.R.Requested
	}
	return c.R.Used
}

func scopedSpace(c AdviceCase) string {
	if c.R.MemorySpace == "" {
		return "vmem"
	}
	return c.R.MemorySpace
}

func scopedSizesKnown(c AdviceCase) bool { return scopedNeed(c).Known && c.R.Capacity.Known }

// scopedLimitKiB is the need rounded up to a whole MiB, in KiB.
func scopedLimitKiB(c AdviceCase) int64 { return (scopedNeed(c).Bytes + (1<<20 - 1)) >> 20 << 10 }

// E3000: a SparseCore allocation does not fit.
var sparseCoreAdvice = AdviceTable{
	LeadRow,
	{Name: "offset past the limit", Action: grammar.ActionInvestigate, When: func(c AdviceCase) bool { return c.R.Words.Offset > 0 && c.R.Words.Limit > 0 }, Say: func(c AdviceCase) string {
		w := c.R.Words
		s := "The SparseCore allocation reaches offset " + strconv.FormatInt(w.Offset, 10) + " words against a limit of " +
			strconv.FormatInt(w.Limit, 10) + " (over by " + strconv.FormatInt(w.Offset-w.Limit, 10) + " words"
		if w.Requested > 0 {
			s += "; the failing request is " + strconv.FormatInt(w.Requested, 10) + " words"
		}
		return s + ")."
	}},
	{Name: "SparseCore HBM", Action: grammar.ActionTuneCompiler, When: isSparseCoreHBM,
		Say: sayConst("SparseCore HBM (space 203): check the embedding sharding and lower max_ids_per_partition / max_unique_ids_per_partition.")},
	{Name: "scratch: dump the MLIR", Action: grammar.ActionInvestigate, When: notSparseCoreHBM,
		Say: sayConst("Find what allocates there: dump the SparseCore MLIR with --xla_sc_dump_mlir_to=<dir> (Mosaic kernels: --xla_mosaic_dump_to=<dir>), and shrink the kernel's scratch_shapes.")},
	{Name: "scratch: no collective offload", Action: grammar.ActionTuneCompiler, When: notSparseCoreHBM,
		Say: sayConst("Turn off SparseCore collective offload to free its memory: --xla_tpu_enable_sparse_core_collective_offload_all_gather=false and --xla_tpu_enable_sparse_core_collective_offload_all_reduce=false.")},
	{Name: "report", Action: grammar.ActionInvestigate, When: always, Say: sayConst("If none of this applies, report it to OpenXLA with the dumps.")},
	NoteRow,
}

func isSparseCoreHBM(c AdviceCase) bool  { return c.R.MemorySpace == "hbm" }
func notSparseCoreHBM(c AdviceCase) bool { return !isSparseCoreHBM(c) }

// AlignmentHint names the minor-most dimensions of a TPU shape (s32[2048,128]{1,0:T(8,128)}) not multiples of the tile.
func AlignmentHint(shape string) string {
	lb := strings.IndexByte(shape, '[')
	rb := strings.IndexByte(shape, ']')
	if lb < 0 || rb < lb {
		return ""
	}
	var dims []int64
	for _, f := range strings.Split(shape[lb+1:rb], ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return ""
		}
		dims = append(dims, n)
	}
	// minor-to-major order from the layout {4,3,2,0,1:T(8,128)}; default: row-major
	order := make([]int, 0, len(dims))
	tile := [2]int64{8, 128}
	if lc := strings.IndexByte(shape[rb:], '{'); lc >= 0 {
		lay, _, _ := strings.Cut(shape[rb+lc+1:], "}")
		dimsPart, tilePart, _ := strings.Cut(lay, ":")
		for _, f := range strings.Split(dimsPart, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 || n >= len(dims) {
				order = order[:0]
				break
			}
			order = append(order, n)
		}
		t, hasTile := strings.CutPrefix(tilePart, "T(")
		t, _, closed := strings.Cut(t, ")")
		x, y, pair := strings.Cut(t, ",")
		a, err1 := strconv.ParseInt(x, 10, 64)
		b, err2 := strconv.ParseInt(y, 10, 64)
		if hasTile && closed && pair && err1 == nil && err2 == nil && a > 0 && b > 0 {
			tile = [2]int64{a, b}
		}
	}
	if len(order) != len(dims) {
		order = order[:0]
		for i := len(dims) - 1; i >= 0; i-- {
			order = append(order, i)
		}
	}
	var bad []string
	check := func(d int, mult int64, role string) {
		if n := dims[d]; n%mult != 0 {
			padTo := (n + mult - 1) / mult * mult
			bad = append(bad, "dimension "+strconv.Itoa(d)+" (size "+strconv.FormatInt(n, 10)+", "+role+
				") is padded to "+strconv.FormatInt(padTo, 10)+"; make it a multiple of "+strconv.FormatInt(mult, 10))
		}
	}
	check(order[0], tile[1], "minor-most")
	if len(order) > 1 {
		check(order[1], tile[0], "second minor-most")
	}
	if len(bad) == 0 {
		return ""
	}
	return "With the (" + strconv.FormatInt(tile[0], 10) + "," + strconv.FormatInt(tile[1], 10) + ") tile, " +
		strings.Join(bad, "; ") + ", or move a larger dimension to the minor-most position."
}
