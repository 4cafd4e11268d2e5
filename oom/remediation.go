// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"math"
	"strconv"
	"strings"
)

// remediate returns the ordered actions for r: the ones its own numbers call
// for first, the general ones after. The wording is ours; the facts (flags,
// APIs) come from the OpenXLA error pages E0100, E0101, E1000, E1001, E3000,
// the OOM debugging guide and JAX's GPU memory allocation notes.
func remediate(r *Report, flat string, traits adviceTraits) []string {
	var a advice
	if traits.own != nil {
		return traits.own(r)
	}
	switch r.Code {
	case codeHbm:
		a.compileHbm(r, flat, traits)
	case codeBuffer, codeProgram, codeVmem, codeSparseCore:
		// The family's lead step first, its note after the code's advice.
		a.addLead(r, traits)
		switch r.Code {
		case codeBuffer:
			a.runtimeBuffer(r)
		case codeProgram:
			a.programLoad(r)
		case codeVmem:
			a.scopedVmem(r)
		default:
			a.sparseCore(r)
		}
		a.addNote(traits)
	default:
		a.generic(r, flat, traits)
	}
	if len(r.Breakdown.Allocations) == 0 && !r.Breakdown.Total.Known && !r.Breakdown.AvailableAfter.Known {
		return a
	}
	// The breakdown's numbers come right after the headline's own.
	b := breakdownAdvice(r)
	if len(b) == 0 {
		return a
	}
	out := make(advice, 0, len(a)+len(b))
	out = append(out, a[:min(1, len(a))]...)
	out = append(out, b...)
	return append(out, a[min(1, len(a)):]...)
}

type advice []string

func (a *advice) add(parts ...string) { *a = append(*a, strings.Join(parts, "")) }

// addLead adds the family's lead step, if it has one for r.
func (a *advice) addLead(r *Report, traits adviceTraits) {
	if traits.lead != nil {
		if s := traits.lead(r); s != "" {
			a.add(s)
		}
	}
}

// addNote adds the family's note, if it has one.
func (a *advice) addNote(traits adviceTraits) {
	if traits.note != "" {
		a.add(traits.note)
	}
}

// humanSize formats a size for advice text ("1.50GiB").
func humanSize(s Size) string { return HumanBytes(s.Bytes) }

// ratio returns need/have, or 0 when either is unknown or have is not positive.
func ratio(need, have Size) float64 {
	if !need.Known || !have.Known || have.Bytes <= 0 {
		return 0
	}
	return float64(need.Bytes) / float64(have.Bytes)
}

func fmtRatio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) + "×" }

// E0100: a runtime buffer allocation on the TPU failed.
func (a *advice) runtimeBuffer(r *Report) {
	switch r.Cause {
	case CauseFragmentation:
		a.add("HBM is fragmented: ", humanSize(r.Free), " is free in total but no single block holds ", humanSize(r.Requested),
			". Free buffers you no longer need (jax.Array.delete(), drop references) and re-create the large ones together so they pack; the runtime defragments only when it can.")
		a.add("Allocate the largest long-lived buffers (parameters, optimizer state, caches) first, before many small or short-lived arrays break memory up.")
	case CauseExhaustion:
		a.add("The buffer needs ", humanSize(r.Requested), " but only ", humanSize(r.Free), " is free (short by ", HumanBytes(r.Requested.Bytes-r.Free.Bytes),
			"): shrink what lives on the device: a smaller batch or sequence length, parameters sharded over more cores (e.g. FSDP).")
	default:
		a.add("Shrink what lives on the device: a smaller batch or sequence length, parameters sharded over more cores (e.g. FSDP).")
	}
	a.add("Donate inputs that are not needed after the call (jax.jit(..., donate_argnums=...)) so outputs reuse their memory.")
	a.add("Look for stale references keeping jax.Array buffers alive (lists of past outputs, globals); save and restore checkpoints sharded instead of gathering the whole state on one device.")
	a.add("Rerun with the libtpu flag tpu_log_allocations_on_oom to get a dump of every live allocation at the moment of failure.")
}

// E0101: loading a compiled program into HBM failed.
func (a *advice) programLoad(r *Report) {
	switch r.Cause {
	case CauseFragmentation:
		a.add("Loading the program needs ", humanSize(r.Requested), " of contiguous HBM; ", humanSize(r.Free),
			" is free but not in one piece: free or re-create data buffers so a large block opens up before the program loads.")
	case CauseExhaustion:
		s := "Loading the program needs " + humanSize(r.Requested) + " but only " + humanSize(r.Free) + " is free"
		if r.Reservable.Known {
			s += " (" + humanSize(r.Reservable) + " reservable)"
		}
		a.add(s, ": data buffers take priority over programs, so shrink them (smaller batch, sharded parameters, donate_argnums).")
	default:
		a.add("Data buffers take priority over loaded programs: shrink them (smaller batch, sharded parameters, donate_argnums) to leave room for the program.")
	}
	a.add("Cap the HBM programs use for temporaries with the libtpu flag tpu_shared_memory_percent (it can cost speed).")
	a.add("Keep fewer programs loaded at once: every jitted function and every new input shape is its own program.")
	a.add("Release jax.Array references you no longer need, and rerun with tpu_log_allocations_on_oom or a memory profile to see what holds HBM.")
}

// E1000: the compiled program does not fit in HBM.
// The family's lead step comes first, its note after the sizing advice.
func (a *advice) compileHbm(r *Report, flat string, traits adviceTraits) {
	need := r.Used
	if !need.Known {
		need = r.Requested
	}
	x := ratio(need, r.Capacity)
	a.addLead(r, traits)
	switch {
	case x >= 2:
		n := int64(math.Ceil(x))
		a.add("The program needs ", humanSize(need), " and the device has ", humanSize(r.Capacity), ": shrink the footprint by ", fmtRatio(x),
			" or shard it over at least ", strconv.FormatInt(n, 10), " devices; flags alone will not close a gap this large.")
		a.add("Cut the per-device batch size (by about ", fmtRatio(x), "), or use microbatching / gradient accumulation.")
	case x > 1.15:
		a.add("The program needs ", humanSize(need), " and the device has ", humanSize(r.Capacity), " (", fmtRatio(x),
			"): reduce the batch size by at least ", fmtRatio(x), ", keep large tensors in bfloat16 (or quantize them), or shard parameters and optimizer state over at least ",
			strconv.FormatInt(int64(math.Ceil(x)), 10), " devices.")
	case x > 0:
		over := need.Bytes - r.Capacity.Bytes
		if r.Exceeded.Known {
			over = r.Exceeded.Bytes // the exact figure, not a difference of rounded ones
		}
		pct := strconv.FormatFloat((x-1)*100, 'f', 1, 64)
		a.add("The program is only ", HumanBytes(over), " (", pct, "%) over the ", humanSize(r.Capacity),
			" available: let rematerialization work harder, e.g. --xla_tpu_rematerialization_algo=PEAK_PRIORITY and --xla_tpu_max_hbm_size_mib=",
			strconv.FormatInt(r.Capacity.Bytes*9/10>>20, 10), " (a target below the real capacity), or jax.checkpoint on the largest layers; sharded over ",
			strconv.FormatInt(int64(math.Ceil(x)), 10), " devices it fits without either.")
		a.add("Keep the largest tensors in bfloat16 to win back the last few percent.")
	}
	a.addNote(traits)
	if x == 0 {
		a.add("Reduce the batch size, keep large tensors in bfloat16, and shard parameters and optimizer state over more chips.")
	}
	a.add("Donate parameters and optimizer state to the step (jax.jit(..., donate_argnums=...)) so outputs reuse their HBM.")
	a.add("Trade compute for memory: jax.checkpoint (remat) on large blocks, or offload activations or optimizer state to host memory.")
	if strings.Contains(flat, "Largest program allocations") {
		a.add("The breakdown printed with the error lists the largest allocations: start with those (shape, padding, operator).")
	}
	a.add("Capture a profile and open XProf's Memory Viewer to see which buffers are live at the peak.")
}

// E1001: a kernel's scoped VMEM (or SMEM) does not fit.
func (a *advice) scopedVmem(r *Report) {
	need := r.Requested
	if !need.Known {
		need = r.Used
	}
	space := r.MemorySpace
	if space == "" {
		space = "vmem"
	}
	if space == "smem" {
		a.add("SMEM holds scalars (scalar-prefetch arguments, semaphores, small index tables): pass fewer or smaller scalar arrays, or move large index tables to VMEM or HBM.")
	}
	if need.Known && r.Capacity.Known {
		kib := (need.Bytes + (1<<20 - 1)) >> 20 << 10 // rounded up to a whole MiB, in KiB
		a.add("It needs ", humanSize(need), " of scoped ", space, " but the limit is ", humanSize(r.Capacity),
			": use smaller block sizes (BlockSpec tiles) so each step fits, or raise the limit for this kernel with vmem_limit_bytes=",
			strconv.FormatInt(kib<<10, 10), " in the Pallas compiler params.")
		a.add("To raise the limit for every kernel instead: --xla_tpu_scoped_vmem_limit_kib=", strconv.FormatInt(kib, 10), " (it must stay below the chip's VMEM).")
	} else {
		a.add("Use smaller block sizes (BlockSpec tiles) in the kernel, or raise its limit with vmem_limit_bytes in the Pallas compiler params (globally: --xla_tpu_scoped_vmem_limit_kib).")
	}
	a.add("Place large operands in other memory explicitly (pltpu.with_memory_space_constraint) instead of letting them land in ", space, ".")
	if r.Instruction != "" {
		a.add("The failing instruction is ", r.Instruction, ": if it is not a custom (Pallas/Mosaic) kernel, running out of scoped memory points to a compiler bug worth reporting to OpenXLA.")
	} else {
		a.add("If the failing op is not a custom (Pallas/Mosaic) kernel, running out of scoped memory points to a compiler bug worth reporting to OpenXLA.")
	}
}

// E3000: a SparseCore allocation does not fit.
func (a *advice) sparseCore(r *Report) {
	w := r.Words
	if w.Offset > 0 && w.Limit > 0 {
		s := "The SparseCore allocation reaches offset " + strconv.FormatInt(w.Offset, 10) + " words against a limit of " +
			strconv.FormatInt(w.Limit, 10) + " (over by " + strconv.FormatInt(w.Offset-w.Limit, 10) + " words"
		if w.Requested > 0 {
			s += "; the failing request is " + strconv.FormatInt(w.Requested, 10) + " words"
		}
		a.add(s, ").")
	}
	if r.MemorySpace == "hbm" {
		a.add("SparseCore HBM (space 203): check the embedding sharding and lower max_ids_per_partition / max_unique_ids_per_partition.")
	} else {
		a.add("Find what allocates there: dump the SparseCore MLIR with --xla_sc_dump_mlir_to=<dir> (Mosaic kernels: --xla_mosaic_dump_to=<dir>), and shrink the kernel's scratch_shapes.")
		a.add("Turn off SparseCore collective offload to free its memory: --xla_tpu_enable_sparse_core_collective_offload_all_gather=false and --xla_tpu_enable_sparse_core_collective_offload_all_reduce=false.")
	}
	a.add("If none of this applies, report it to OpenXLA with the dumps.")
}

// E0007: GPU and CPU allocator failures.
// The family's traits: hostRAM switches to the host advice; lead and note
// come after it, ahead of the sizing advice; poolSetup drops the advice to
// give XLA more of the GPU; suggestAsyncAllocator names the async allocator
// when the cause is unknown.
func (a *advice) generic(r *Report, flat string, traits adviceTraits) {
	if r.Backend == BackendCPU && r.MemorySpace != "host" || traits.hostRAM {
		a.add("The host ran out of RAM allocating ", humanSize(r.Requested), ": reduce the batch size or the data kept in host memory, and check the process's memory limit (container or cgroup).")
		a.add("Donate inputs (donate_argnums) and avoid holding several copies of large arrays at once.")
		return
	}
	a.addLead(r, traits)
	a.addNote(traits)
	if r.MemorySpace == "host" {
		a.pinnedHost(r, flat)
		return
	}
	if r.Phase == PhaseCompile {
		a.add("The GPU autotuner ran out of memory while compiling: free device memory before compiling (delete arrays, compile ahead of time), or cut autotuning with XLA_FLAGS=--xla_gpu_autotune_level=0.")
	}
	// Whether a larger share of the GPU would help depends on how the request
	// compares with the whole device and with XLA's pool on it.
	tooBigForDevice := r.Capacity.Known && r.Requested.Known && r.Requested.Bytes > r.Capacity.Bytes
	tooBigForPool := !tooBigForDevice && r.PoolLimit.Known && r.Requested.Known && r.Requested.Bytes > r.PoolLimit.Bytes
	switch {
	case tooBigForDevice:
		a.add("A single allocation of ", humanSize(r.Requested), " is larger than the whole device (", humanSize(r.Capacity), freeNote(r),
			"): shard or shrink that array; no allocator setting can fit it.")
	case tooBigForPool:
		a.poolTooSmall(r)
	}
	switch {
	case r.Cause == CauseFragmentation:
		a.add(humanSize(r.Free), " is free but no block holds ", humanSize(r.Requested),
			": memory is fragmented. Use the CUDA async allocator (XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async in JAX, TF_GPU_ALLOCATOR=cuda_malloc_async in TensorFlow) or, to allocate exactly on demand, XLA_PYTHON_CLIENT_ALLOCATOR=platform.")
	case r.Cause == CauseExhaustion && r.Free.Known && r.Requested.Known && r.Free.Bytes >= r.Requested.Bytes:
		// The allocator's summary counts bytes it has not claimed from the
		// device as free; it said exhaustion, so claiming them failed.
		a.add("XLA's memory pool could not grow: ", humanSize(r.Free), " counts bytes not yet claimed from the device, and claiming them for ", humanSize(r.Requested),
			" failed: another process or library holds GPU memory (check nvidia-smi), or preallocate the pool at start-up (XLA_PYTHON_CLIENT_PREALLOCATE=true).")
	case r.Cause == CauseExhaustion && !tooBigForDevice && !tooBigForPool:
		a.add("The allocation needs ", humanSize(r.Requested), " but only ", humanSize(r.Free), " is free: reduce what the program keeps on the device.")
	}
	a.add("Reduce the per-device footprint: a smaller batch, jax.checkpoint (remat) on large blocks, bfloat16 for large tensors, donate_argnums for inputs not needed after the step, or shard over more GPUs.")
	// A pool that is too small was dealt with above; the start-up pool
	// message (poolSetup) already says to ask for less, not more.
	if !tooBigForDevice && !tooBigForPool && !traits.poolSetup {
		a.add("Give XLA more of the GPU with XLA_PYTHON_CLIENT_MEM_FRACTION (default .75, e.g. .90); if other processes or libraries need GPU memory, set XLA_PYTHON_CLIENT_PREALLOCATE=false instead.")
	}
	if traits.suggestAsyncAllocator && r.Cause == "" {
		a.add("If the failure comes from fragmentation rather than a full device, TF_GPU_ALLOCATOR=cuda_malloc_async (XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async in JAX) may help.")
	}
	if strings.Contains(flat, "BufferAssignment OOM Debugging") {
		a.add("Read the \"Peak buffers\" list printed below the error: it names the operators and shapes that hold the memory at the peak.")
	}
}

// poolTooSmall advises on a GPU request larger than XLA's whole memory pool:
// freeing arrays cannot help, only a larger pool or a smaller array can.
func (a *advice) poolTooSmall(r *Report) {
	s := "The request (" + humanSize(r.Requested) + ") is larger than XLA's whole memory pool on this GPU (pool limit " + humanSize(r.PoolLimit) + freeNote(r) +
		"), so freeing other arrays cannot make room. "
	if r.Capacity.Known && r.Capacity.Bytes > 0 {
		// The pool must hold the request and what is already live: the
		// fraction is rounded up to a multiple of 0.05 with 0.05 to spare.
		// Beyond 0.95 the CUDA context and libraries have no room left.
		need := float64(r.Requested.Bytes) / float64(r.Capacity.Bytes)
		frac := math.Ceil(need*20+1) / 20
		s += "The request is " + strconv.FormatFloat(need*100, 'f', 0, 64) + "% of the GPU's " + humanSize(r.Capacity)
		if frac <= 0.95 {
			s += ": raise XLA_PYTHON_CLIENT_MEM_FRACTION to at least " + strconv.FormatFloat(frac, 'f', 2, 64) + " (default .75), or shard or shrink the array."
		} else {
			s += ", more than any XLA_PYTHON_CLIENT_MEM_FRACTION can leave room for: shard or shrink the array."
		}
	} else {
		s += "Raising XLA_PYTHON_CLIENT_MEM_FRACTION (default .75, e.g. .90) helps only if the GPU has well over " + humanSize(r.Requested) +
			" in total; otherwise shard or shrink the array."
	}
	a.add(s)
}

// freeNote is "; only X is free" when the free memory is known.
func freeNote(r *Report) string {
	if !r.Free.Known {
		return ""
	}
	return "; only " + humanSize(r.Free) + " is free"
}
