// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"fmt"
	"math"
	"strconv"
)

// E0007 and the other codes: the host ran out of RAM. Nothing on a device
// helps, so only this is said.
var hostRAMAdvice = adviceTable{
	{name: "host RAM", when: always, say: func(c adviceCase) string {
		return "The host ran out of RAM allocating " + humanSize(c.r.Requested) +
			": reduce the batch size or the data kept in host memory, and check the process's memory limit (container or cgroup)."
	}},
	{name: "no copies", when: always, say: sayConst("Donate inputs (donate_argnums) and avoid holding several copies of large arrays at once.")},
}

// hostRAM: a CPU backend allocation of device (not pinned host) memory, or a
// family that says the host ran out of RAM.
func hostRAM(c adviceCase) bool {
	return c.r.Backend == BackendCPU && c.r.MemorySpace != "host" || c.traits.hostRAM
}

// E0007 and the other codes: a GPU allocator could not get device memory.
// Whether a larger share of the GPU would help depends on how the request
// compares with the whole device and with XLA's pool on it.
var deviceAdvice = adviceTable{
	leadRow,
	noteRow,
	{name: "autotuner while compiling", when: func(c adviceCase) bool { return c.r.Phase == PhaseCompile },
		say: sayConst("The GPU autotuner ran out of memory while compiling: free device memory before compiling (delete arrays, compile ahead of time), or cut autotuning with XLA_FLAGS=--xla_gpu_autotune_level=0.")},
	{name: "larger than the device", when: tooBigForDevice, say: func(c adviceCase) string {
		return "A single allocation of " + humanSize(c.r.Requested) + " is larger than the whole device (" + humanSize(c.r.Capacity) + freeNote(c.r) +
			"): shard or shrink that array; no allocator setting can fit it."
	}},
	{name: "larger than XLA's pool", when: tooBigForPool, say: poolTooSmall},
	{name: "fragmented", when: fragmented, say: func(c adviceCase) string {
		return humanSize(c.r.Free) + " is free but no block holds " + humanSize(c.r.Requested) +
			": memory is fragmented. Use the CUDA async allocator (XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async in JAX, TF_GPU_ALLOCATOR=cuda_malloc_async in TensorFlow) or, to allocate exactly on demand, XLA_PYTHON_CLIENT_ALLOCATOR=platform."
	}},
	{name: "pool could not grow", when: poolCouldNotGrow, say: func(c adviceCase) string {
		return "XLA's memory pool could not grow: " + humanSize(c.r.Free) + " counts bytes not yet claimed from the device, and claiming them for " + humanSize(c.r.Requested) +
			" failed: another process or library holds GPU memory (check nvidia-smi), or preallocate the pool at start-up (XLA_PYTHON_CLIENT_PREALLOCATE=true)."
	}},
	{name: "exhausted", when: func(c adviceCase) bool {
		return exhausted(c) && !poolCouldNotGrow(c) && !tooBigForDevice(c) && !tooBigForPool(c)
	}, say: func(c adviceCase) string {
		return "The allocation needs " + humanSize(c.r.Requested) + " but only " + humanSize(c.r.Free) + " is free: reduce what the program keeps on the device."
	}},
	{name: "smaller footprint", when: always,
		say: sayConst("Reduce the per-device footprint: a smaller batch, jax.checkpoint (remat) on large blocks, bfloat16 for large tensors, donate_argnums for inputs not needed after the step, or shard over more GPUs.")},
	// The driver refused allocations in the failure's own record (attempts):
	// the GPU's memory is held outside XLA's pool, so a larger share for XLA
	// cannot be had.
	{name: "driver refused on the way", when: func(c adviceCase) bool {
		return c.r.refusedBefore > 0 && c.r.MemorySpace != "host" && !tooBigForDevice(c)
	}, say: func(c adviceCase) string {
		return fmt.Sprintf("The GPU driver refused %s before this failure: memory outside XLA's pool is taken, usually by another process or library on this GPU (nvidia-smi --query-compute-apps=pid,used_memory --format=csv; PyTorch or CuPy allocating before JAX in the same process). Free it or give each process its share with XLA_PYTHON_CLIENT_MEM_FRACTION; a larger share for XLA cannot be had.", oneOrMany(c.r.refusedBefore, "1 allocation", strconv.Itoa(c.r.refusedBefore)+" allocations"))
	}},
	// A request too big for the device or pool was dealt with above.
	{name: "more of the GPU", when: func(c adviceCase) bool {
		return !tooBigForDevice(c) && !tooBigForPool(c) && c.r.refusedBefore == 0
	}, say: sayConst("Give XLA more of the GPU with XLA_PYTHON_CLIENT_MEM_FRACTION (default .75, e.g. .90); if other processes or libraries need GPU memory, set XLA_PYTHON_CLIENT_PREALLOCATE=false instead.")},
	{name: "async allocator, cause not read", when: func(c adviceCase) bool { return c.traits.suggestAsyncAllocator && c.r.Cause == "" },
		say: sayConst("If the failure comes from fragmentation rather than a full device, TF_GPU_ALLOCATOR=cuda_malloc_async (XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async in JAX) may help.")},
	{name: "peak buffers printed", when: flatHas("BufferAssignment OOM Debugging"),
		say: sayConst("Read the \"Peak buffers\" list printed below the error: it names the operators and shapes that hold the memory at the peak.")},
}

// tooBigForDevice: the one request is larger than the whole device.
func tooBigForDevice(c adviceCase) bool {
	r := c.r
	return r.Capacity.Known && r.Requested.Known && r.Requested.Bytes > r.Capacity.Bytes
}

// tooBigForPool: the request fits the device but not XLA's whole pool.
func tooBigForPool(c adviceCase) bool {
	r := c.r
	return !tooBigForDevice(c) && r.PoolLimit.Known && r.Requested.Known && r.Requested.Bytes > r.PoolLimit.Bytes
}

// poolCouldNotGrow: the allocator said exhaustion while counting more than
// the request as free. Its summary counts bytes it has not claimed from
// the device as free, so claiming them failed.
func poolCouldNotGrow(c adviceCase) bool {
	r := c.r
	return exhausted(c) && r.Free.Known && r.Requested.Known && r.Free.Bytes >= r.Requested.Bytes
}

// poolTooSmall advises on a GPU request larger than XLA's whole memory pool:
// freeing arrays cannot help, only a larger pool or a smaller array can.
func poolTooSmall(c adviceCase) string {
	r := c.r
	s := "The request (" + humanSize(r.Requested) + ") is larger than XLA's whole memory pool on this GPU (pool limit " + humanSize(r.PoolLimit) + freeNote(r) +
		"), so freeing other arrays cannot make room. "
	if !r.Capacity.Known || r.Capacity.Bytes <= 0 {
		return s + "Raising XLA_PYTHON_CLIENT_MEM_FRACTION (default .75, e.g. .90) helps only if the GPU has well over " + humanSize(r.Requested) +
			" in total; otherwise shard or shrink the array."
	}
	// The pool must hold the request and what is already live: the
	// fraction is rounded up to a multiple of 0.05 with 0.05 to spare.
	// Beyond 0.95 the CUDA context and libraries have no room left.
	need := float64(r.Requested.Bytes) / float64(r.Capacity.Bytes)
	frac := math.Ceil(need*20+1) / 20
	s += "The request is " + strconv.FormatFloat(need*100, 'f', 0, 64) + "% of the GPU's " + humanSize(r.Capacity)
	if frac <= 0.95 {
		return s + ": raise XLA_PYTHON_CLIENT_MEM_FRACTION to at least " + strconv.FormatFloat(frac, 'f', 2, 64) + " (default .75), or shard or shrink the array."
	}
	return s + ", more than any XLA_PYTHON_CLIENT_MEM_FRACTION can leave room for: shard or shrink the array."
}
