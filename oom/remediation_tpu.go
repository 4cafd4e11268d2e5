// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"math"
	"strconv"
)

// E1000: the compiled program does not fit in HBM. How far it is over
// (compileHbmRatio) decides between sharding, batch cuts and flags.
var compileHbmAdvice = adviceTable{
	leadRow,
	{name: "2× or more over: shard", action: ActionShard, when: farOver, say: func(c adviceCase) string {
		x := compileHbmRatio(c)
		return "The program needs " + humanSize(compileHbmNeed(c)) + " and the device has " + humanSize(c.r.Capacity) + ": shrink the footprint by " + fmtRatio(x) +
			" or shard it over at least " + strconv.FormatInt(int64(math.Ceil(x)), 10) + " devices; flags alone will not close a gap this large."
	}},
	{name: "2× or more over: cut the batch", action: ActionShrinkFootprint, when: farOver, say: func(c adviceCase) string {
		return "Cut the per-device batch size (by about " + fmtRatio(compileHbmRatio(c)) + "), or use microbatching / gradient accumulation."
	}},
	{name: "over by more than 15%", action: ActionShrinkFootprint, when: wellOver, say: func(c adviceCase) string {
		x := compileHbmRatio(c)
		return "The program needs " + humanSize(compileHbmNeed(c)) + " and the device has " + humanSize(c.r.Capacity) + " (" + fmtRatio(x) +
			"): reduce the batch size by at least " + fmtRatio(x) + ", keep large tensors in bfloat16 (or quantize them), or shard parameters and optimizer state over at least " +
			strconv.FormatInt(int64(math.Ceil(x)), 10) + " devices."
	}},
	{name: "just over: rematerialize", action: ActionRematerialize, when: justOver, say: func(c adviceCase) string {
		r, x := c.r, compileHbmRatio(c)
		over := compileHbmNeed(c).Bytes - r.Capacity.Bytes
		if r.Exceeded.Known {
			over = r.Exceeded.Bytes // the exact figure, not a difference of rounded ones
		}
		pct := strconv.FormatFloat((x-1)*100, 'f', 1, 64)
		return "The program is only " + HumanBytes(over) + " (" + pct + "%) over the " + humanSize(r.Capacity) +
			" available: let rematerialization work harder, e.g. --xla_tpu_rematerialization_algo=PEAK_PRIORITY and --xla_tpu_max_hbm_size_mib=" +
			strconv.FormatInt(r.Capacity.Bytes*9/10>>20, 10) + " (a target below the real capacity), or jax.checkpoint on the largest layers; sharded over " +
			strconv.FormatInt(int64(math.Ceil(x)), 10) + " devices it fits without either."
	}},
	{name: "just over: bfloat16", action: ActionShrinkFootprint, when: justOver, say: sayConst("Keep the largest tensors in bfloat16 to win back the last few percent.")},
	noteRow,
	{name: "sizes not known", action: ActionShrinkFootprint, when: func(c adviceCase) bool { return compileHbmRatio(c) == 0 },
		say: sayConst("Reduce the batch size, keep large tensors in bfloat16, and shard parameters and optimizer state over more chips.")},
	{name: "donate", action: ActionReleaseBuffers, when: always,
		say: sayConst("Donate parameters and optimizer state to the step (jax.jit(..., donate_argnums=...)) so outputs reuse their HBM.")},
	{name: "remat or offload", action: ActionRematerialize, when: always,
		say: sayConst("Trade compute for memory: jax.checkpoint (remat) on large blocks, or offload activations or optimizer state to host memory.")},
	{name: "largest allocations printed", action: ActionInvestigate, when: flatHas("Largest program allocations"),
		say: sayConst("The breakdown printed with the error lists the largest allocations: start with those (shape, padding, operator).")},
	{name: "memory viewer", action: ActionInvestigate, when: always,
		say: sayConst("Capture a profile and open XProf's Memory Viewer to see which buffers are live at the peak.")},
}

// compileHbmNeed is what the program needs: what it uses, else the request.
func compileHbmNeed(c adviceCase) Size {
	if c.r.Used.Known {
		return c.r.Used
	}
	return c.r.Requested
}

// compileHbmRatio is need / capacity, 0 when either is unknown.
func compileHbmRatio(c adviceCase) float64 { return ratio(compileHbmNeed(c), c.r.Capacity) }

// How far the program is over the device: 2× or more, more than 15%, or
// less (0 when a size is not known).
func farOver(c adviceCase) bool  { return compileHbmRatio(c) >= 2 }
func wellOver(c adviceCase) bool { x := compileHbmRatio(c); return x > 1.15 && x < 2 }
func justOver(c adviceCase) bool { x := compileHbmRatio(c); return x > 0 && x <= 1.15 }

// E0100: a runtime buffer allocation on the TPU failed.
var runtimeBufferAdvice = adviceTable{
	leadRow,
	{name: "fragmented", action: ActionReleaseBuffers, when: fragmented, say: func(c adviceCase) string {
		return "HBM is fragmented: " + humanSize(c.r.Free) + " is free in total but no single block holds " + humanSize(c.r.Requested) +
			". Free buffers you no longer need (jax.Array.delete(), drop references) and re-create the large ones together so they pack; the runtime defragments only when it can."
	}},
	{name: "fragmented: largest first", action: ActionReleaseBuffers, when: fragmented,
		say: sayConst("Allocate the largest long-lived buffers (parameters, optimizer state, caches) first, before many small or short-lived arrays break memory up.")},
	{name: "exhausted", action: ActionShrinkFootprint, when: exhausted, say: func(c adviceCase) string {
		r := c.r
		return "The buffer needs " + humanSize(r.Requested) + " but only " + humanSize(r.Free) + " is free (short by " + HumanBytes(r.Requested.Bytes-r.Free.Bytes) +
			"): shrink what lives on the device: a smaller batch or sequence length, parameters sharded over more cores (e.g. FSDP)."
	}},
	{name: "cause not known", action: ActionShrinkFootprint, when: causeNotKnown,
		say: sayConst("Shrink what lives on the device: a smaller batch or sequence length, parameters sharded over more cores (e.g. FSDP).")},
	{name: "donate", action: ActionReleaseBuffers, when: always,
		say: sayConst("Donate inputs that are not needed after the call (jax.jit(..., donate_argnums=...)) so outputs reuse their memory.")},
	{name: "stale references", action: ActionReleaseBuffers, when: always,
		say: sayConst("Look for stale references keeping jax.Array buffers alive (lists of past outputs, globals); save and restore checkpoints sharded instead of gathering the whole state on one device.")},
	{name: "allocation dump", action: ActionInvestigate, when: always,
		say: sayConst("Rerun with the libtpu flag tpu_log_allocations_on_oom to get a dump of every live allocation at the moment of failure.")},
	noteRow,
}

// E0101: loading a compiled program into HBM failed.
var programLoadAdvice = adviceTable{
	leadRow,
	{name: "fragmented", action: ActionReleaseBuffers, when: fragmented, say: func(c adviceCase) string {
		return "Loading the program needs " + humanSize(c.r.Requested) + " of contiguous HBM; " + humanSize(c.r.Free) +
			" is free but not in one piece: free or re-create data buffers so a large block opens up before the program loads."
	}},
	{name: "exhausted", action: ActionShrinkFootprint, when: exhausted, say: func(c adviceCase) string {
		r := c.r
		s := "Loading the program needs " + humanSize(r.Requested) + " but only " + humanSize(r.Free) + " is free"
		if r.Reservable.Known {
			s += " (" + humanSize(r.Reservable) + " reservable)"
		}
		return s + ": data buffers take priority over programs, so shrink them (smaller batch, sharded parameters, donate_argnums)."
	}},
	{name: "cause not known", action: ActionShrinkFootprint, when: causeNotKnown,
		say: sayConst("Data buffers take priority over loaded programs: shrink them (smaller batch, sharded parameters, donate_argnums) to leave room for the program.")},
	{name: "cap program temporaries", action: ActionTuneCompiler, when: always,
		say: sayConst("Cap the HBM programs use for temporaries with the libtpu flag tpu_shared_memory_percent (it can cost speed).")},
	{name: "fewer programs", action: ActionReleaseBuffers, when: always,
		say: sayConst("Keep fewer programs loaded at once: every jitted function and every new input shape is its own program.")},
	{name: "release references", action: ActionReleaseBuffers, when: always,
		say: sayConst("Release jax.Array references you no longer need, and rerun with tpu_log_allocations_on_oom or a memory profile to see what holds HBM.")},
	noteRow,
}

// E1001: a kernel's scoped VMEM (or SMEM) does not fit.
var scopedVmemAdvice = adviceTable{
	leadRow,
	{name: "SMEM", action: ActionRetileKernel, when: func(c adviceCase) bool { return scopedSpace(c) == "smem" },
		say: sayConst("SMEM holds scalars (scalar-prefetch arguments, semaphores, small index tables): pass fewer or smaller scalar arrays, or move large index tables to VMEM or HBM.")},
	{name: "sizes known: this kernel's limit", action: ActionRetileKernel, when: scopedSizesKnown, say: func(c adviceCase) string {
		kib := scopedLimitKiB(c)
		return "It needs " + humanSize(scopedNeed(c)) + " of scoped " + scopedSpace(c) + " but the limit is " + humanSize(c.r.Capacity) +
			": use smaller block sizes (BlockSpec tiles) so each step fits, or raise the limit for this kernel with vmem_limit_bytes=" +
			strconv.FormatInt(kib<<10, 10) + " in the Pallas compiler params."
	}},
	{name: "sizes known: every kernel's limit", action: ActionSetMemoryLimit, when: scopedSizesKnown, say: func(c adviceCase) string {
		return "To raise the limit for every kernel instead: --xla_tpu_scoped_vmem_limit_kib=" + strconv.FormatInt(scopedLimitKiB(c), 10) + " (it must stay below the chip's VMEM)."
	}},
	{name: "sizes not known", action: ActionRetileKernel, when: func(c adviceCase) bool { return !scopedSizesKnown(c) },
		say: sayConst("Use smaller block sizes (BlockSpec tiles) in the kernel, or raise its limit with vmem_limit_bytes in the Pallas compiler params (globally: --xla_tpu_scoped_vmem_limit_kib).")},
	{name: "place operands elsewhere", action: ActionRetileKernel, when: always, say: func(c adviceCase) string {
		return "Place large operands in other memory explicitly (pltpu.with_memory_space_constraint) instead of letting them land in " + scopedSpace(c) + "."
	}},
	{name: "instruction named", action: ActionInvestigate, when: func(c adviceCase) bool { return c.r.Instruction != "" }, say: func(c adviceCase) string {
		return "The failing instruction is " + c.r.Instruction + ": if it is not a custom (Pallas/Mosaic) kernel, running out of scoped memory points to a compiler bug worth reporting to OpenXLA."
	}},
	{name: "instruction not named", action: ActionInvestigate, when: func(c adviceCase) bool { return c.r.Instruction == "" },
		say: sayConst("If the failing op is not a custom (Pallas/Mosaic) kernel, running out of scoped memory points to a compiler bug worth reporting to OpenXLA.")},
	noteRow,
}

// scopedNeed is the kernel's request, else what it uses.
func scopedNeed(c adviceCase) Size {
	if c.r.Requested.Known {
		return c.r.Requested
	}
	return c.r.Used
}

// scopedSpace is the scoped memory space, vmem unless the message said.
func scopedSpace(c adviceCase) string {
	if c.r.MemorySpace == "" {
		return "vmem"
	}
	return c.r.MemorySpace
}

func scopedSizesKnown(c adviceCase) bool { return scopedNeed(c).Known && c.r.Capacity.Known }

// scopedLimitKiB is the need rounded up to a whole MiB, in KiB.
func scopedLimitKiB(c adviceCase) int64 { return (scopedNeed(c).Bytes + (1<<20 - 1)) >> 20 << 10 }

// E3000: a SparseCore allocation does not fit.
var sparseCoreAdvice = adviceTable{
	leadRow,
	{name: "offset past the limit", action: ActionInvestigate, when: func(c adviceCase) bool { return c.r.Words.Offset > 0 && c.r.Words.Limit > 0 }, say: func(c adviceCase) string {
		w := c.r.Words
		s := "The SparseCore allocation reaches offset " + strconv.FormatInt(w.Offset, 10) + " words against a limit of " +
			strconv.FormatInt(w.Limit, 10) + " (over by " + strconv.FormatInt(w.Offset-w.Limit, 10) + " words"
		if w.Requested > 0 {
			s += "; the failing request is " + strconv.FormatInt(w.Requested, 10) + " words"
		}
		return s + ")."
	}},
	{name: "SparseCore HBM", action: ActionTuneCompiler, when: isSparseCoreHBM,
		say: sayConst("SparseCore HBM (space 203): check the embedding sharding and lower max_ids_per_partition / max_unique_ids_per_partition.")},
	{name: "scratch: dump the MLIR", action: ActionInvestigate, when: notSparseCoreHBM,
		say: sayConst("Find what allocates there: dump the SparseCore MLIR with --xla_sc_dump_mlir_to=<dir> (Mosaic kernels: --xla_mosaic_dump_to=<dir>), and shrink the kernel's scratch_shapes.")},
	{name: "scratch: no collective offload", action: ActionTuneCompiler, when: notSparseCoreHBM,
		say: sayConst("Turn off SparseCore collective offload to free its memory: --xla_tpu_enable_sparse_core_collective_offload_all_gather=false and --xla_tpu_enable_sparse_core_collective_offload_all_reduce=false.")},
	{name: "report", action: ActionInvestigate, when: always, say: sayConst("If none of this applies, report it to OpenXLA with the dumps.")},
	noteRow,
}

func isSparseCoreHBM(c adviceCase) bool  { return c.r.MemorySpace == "hbm" }
func notSparseCoreHBM(c adviceCase) bool { return !isSparseCoreHBM(c) }
