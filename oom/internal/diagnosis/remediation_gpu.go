// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"fmt"
	"math"
	"strconv"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// The host ran out of RAM: nothing on a device helps.
var hostRAMAdvice = AdviceTable{
	{Name: "host RAM", Action: grammar.ActionReduceHostMemory, When: always, Say: func(c AdviceCase) string {
		return "The host ran out of RAM allocating " + grammar.HumanSize(c.R.Requested) +
			": reduce the batch size or the data kept in host memory, and check the process's memory limit (container or cgroup)."
	}},
	{Name: "no copies", Action: grammar.ActionReleaseBuffers, When: always, Say: sayConst(knobDonate + ", and avoid holding several copies of large arrays at once.")},
}

// hostRAM: a CPU backend's device (not pinned host) allocation, or a family that says the host ran out of RAM.
func hostRAM(c AdviceCase) bool {
	return c.R.Backend == grammar.BackendCPU && c.R.MemorySpace != "host" || c.Traits.HostRAM
}

// A GPU allocator could not get device memory (E0007 and the rest).
var deviceAdvice = AdviceTable{
	LeadRow,
	NoteRow,
	{Name: "autotuner while compiling", Action: grammar.ActionTuneCompiler, When: func(c AdviceCase) bool { return c.R.Phase == grammar.PhaseCompile },
		Say: sayConst("The GPU autotuner ran out of memory while compiling: free device memory before compiling (delete arrays, compile ahead of time), or cut autotuning with XLA_FLAGS=--xla_gpu_autotune_level=0.")},
	{Name: "larger than the device", Action: grammar.ActionShard, When: tooBigForDevice, Say: func(c AdviceCase) string {
		return "A single allocation of " + grammar.HumanSize(c.R.Requested) + " is larger than the whole device (" + grammar.HumanSize(c.R.Capacity) + freeNote(c.R) +
			"): shard or shrink that array; no allocator setting can fit it."
	}},
	{Name: "larger than XLA's pool", ActionOf: poolTooSmallAction, When: tooBigForPool, Say: poolTooSmall},
	{Name: "fragmented", Action: grammar.ActionChangeAllocator, When: fragmented, Say: func(c AdviceCase) string {
		return grammar.HumanSize(c.R.Free) + " is free but no block holds " + grammar.HumanSize(c.R.Requested) +
			": memory is fragmented. Use the CUDA async allocator (" + knobAsyncAllocator + ")" + knobExactAllocator + "."
	}},
	{Name: "pool could not grow", Action: grammar.ActionFreeHeldMemory, When: poolCouldNotGrow, Say: func(c AdviceCase) string {
		return "XLA's memory pool could not grow: " + grammar.HumanSize(c.R.Free) + " counts bytes not yet claimed from the device, and claiming them for " + grammar.HumanSize(c.R.Requested) +
			" failed: another process or library holds GPU memory (check nvidia-smi), or preallocate the pool at start-up (" + knobPreallocate + ")."
	}},
	{Name: "exhausted", Action: grammar.ActionShrinkFootprint, When: func(c AdviceCase) bool {
		return exhausted(c) && !poolCouldNotGrow(c) && !tooBigForDevice(c) && !tooBigForPool(c)
	}, Say: func(c AdviceCase) string {
		return "The allocation needs " + grammar.HumanSize(c.R.Requested) + " but only " + grammar.HumanSize(c.R.Free) + " is free: reduce what the program keeps on the device."
	}},
	{Name: "smaller footprint", Action: grammar.ActionShrinkFootprint, When: always,
		Say: sayConst("Reduce the per-device footprint: a smaller batch, " + knobRemat + " on large blocks, " + knobLowPrecision + " for large tensors" +
			knobDonateInList + ", or shard over more GPUs.")},
	// The driver refused allocations in the failure's own record: the memory is held outside XLA's pool.
	{Name: "driver refused on the way", Action: grammar.ActionFreeHeldMemory, When: func(c AdviceCase) bool {
		return c.R.AttemptsInText > 0 && c.R.MemorySpace != "host" && !tooBigForDevice(c)
	}, Say: func(c AdviceCase) string {
		return fmt.Sprintf("The GPU driver refused %s before this failure: memory outside XLA's pool is taken, usually by another process or library on this GPU (nvidia-smi --query-compute-apps=pid,used_memory --format=csv; PyTorch or CuPy allocating before %s in the same process). Free it or give each process its share with %s; a larger share cannot be had.", oneOrMany(c.R.AttemptsInText, "1 allocation", strconv.Itoa(c.R.AttemptsInText)+" allocations"), knobName, knobPoolShare)
	}},
	// A request too big for the device or pool was dealt with above.
	{Name: "more of the GPU", Action: grammar.ActionSetMemoryLimit, When: func(c AdviceCase) bool {
		return !tooBigForDevice(c) && !tooBigForPool(c) && c.R.AttemptsInText == 0
	}, Say: sayConst(knobMoreShare + "; if other processes or libraries need GPU memory, use " + knobGrowOnDemand + " instead.")},
	{Name: "async allocator, cause not read", Action: grammar.ActionChangeAllocator, When: func(c AdviceCase) bool { return c.Traits.SuggestAsyncAllocator && c.R.Cause == "" },
		Say: sayConst("If the failure comes from fragmentation rather than a full device, the CUDA async allocator (" + knobAsyncAllocator + ") may help.")},
	{Name: "peak buffers printed", Action: grammar.ActionInvestigate, When: flatHas("BufferAssignment OOM Debugging"),
		Say: sayConst("Read the \"Peak buffers\" list printed below the error: it names the operators and shapes that hold the memory at the peak.")},
}

func tooBigForDevice(c AdviceCase) bool { return larger(c.R.Requested, c.R.Capacity) }

// tooBigForPool: the request fits the device but not XLA's whole pool.
func tooBigForPool(c AdviceCase) bool {
	return !tooBigForDevice(c) && larger(c.R.Requested, c.R.PoolLimit)
}

// poolCouldNotGrow: exhaustion though the summary counts the request free (bytes not yet claimed from the device).
func poolCouldNotGrow(c AdviceCase) bool {
	r := c.R
	return exhausted(c) && r.Free.Known && r.Requested.Known && r.Free.Bytes >= r.Requested.Bytes
}

// poolTooSmall advises on a request larger than XLA's whole pool: only a larger pool or a smaller array helps.
func poolTooSmall(c AdviceCase) string {
	r := c.R
	s := "The request (" + grammar.HumanSize(r.Requested) + ") is larger than XLA's whole memory pool on this GPU (pool limit " + grammar.HumanSize(r.PoolLimit) + freeNote(r) +
		"), so freeing other arrays cannot make room. "
	if !r.Capacity.Known || r.Capacity.Bytes <= 0 {
		return s + "Raising " + knobPoolShare + " helps only if the GPU has well over " + grammar.HumanSize(r.Requested) +
			" in total; otherwise shard or shrink the array."
	}
	need := float64(r.Requested.Bytes) / float64(r.Capacity.Bytes)
	frac := poolShareNeeded(r)
	s += "The request is " + strconv.FormatFloat(need*100, 'f', 0, 64) + "% of the GPU's " + grammar.HumanSize(r.Capacity)
	if frac <= maxPoolShare {
		mib := strconv.FormatInt(int64(math.Ceil(frac*float64(r.Capacity.Bytes)))>>20, 10)
		return s + ": " + grammar.KnobRef(grammar.KnobPoolShareAtLeast, strconv.FormatFloat(frac, 'f', 2, 64), mib) + ", or shard or shrink the array."
	}
	return s + ", more than any share of the GPU can leave room for: shard or shrink the array."
}

// maxPoolShare is the largest XLA_PYTHON_CLIENT_MEM_FRACTION worth advising: the CUDA context needs room.
const maxPoolShare = 0.95

// poolShareNeeded is the memory fraction whose pool holds the request, rounded up to 0.05 plus 0.05 (0: unknown).
func poolShareNeeded(r *grammar.Report) float64 {
	if !r.Requested.Known || !r.Capacity.Known || r.Capacity.Bytes <= 0 {
		return 0
	}
	return math.Ceil(float64(r.Requested.Bytes)/float64(r.Capacity.Bytes)*20+1) / 20
}

func poolTooSmallAction(c AdviceCase) string {
	if poolShareNeeded(c.R) > maxPoolShare {
		return grammar.ActionShard
	}
	return grammar.ActionSetMemoryLimit
}

// BackOff reports whether n refusals falling from first to last bytes are a BFC back-off (0.9 of the size per
// step; sizes are rounded as printed, so 0.85-0.95 counts).
func BackOff(first, last int64, n int) bool {
	if n < 2 || first <= 0 || last <= 0 || last >= first {
		return false
	}
	step := math.Pow(float64(last)/float64(first), 1/float64(n-1))
	return step >= 0.85 && step <= 0.95
}

// WarningAdvice returns the steps for a warning no failure followed, nil for a kind that has none; for an
// allocation_attempt w is one job's whole series.
func WarningAdvice(w *grammar.Warning) []string {
	if w.Kind != grammar.WarningAllocationAttempt {
		return nil
	}
	n := max(w.Attempts, 1)
	last := w.Requested
	if w.Last.Known {
		last = w.Last
	}
	var cause string
	switch {
	case w.Requested.Known && BackOff(w.Requested.Bytes, last.Bytes, n):
		cause = "XLA's memory pool asked for " + grammar.HumanBytes(w.Requested.Bytes) + " and backed off " + strconv.Itoa(n) +
			" times, still refused at " + grammar.HumanBytes(last.Bytes) + ": "
	case w.Requested.Known:
		cause = "The driver refused " + grammar.HumanBytes(w.Requested.Bytes) + oneOrMany(n, " (once)", " (first of "+strconv.Itoa(n)+" refusals)") + ": "
	default:
		cause = "The driver refused " + oneOrMany(n, "an allocation", strconv.Itoa(n)+" allocations") + ": "
	}
	cause += "less memory is free on this GPU than XLA asks for, because another process or a library in this process " +
		"(PyTorch, CuPy, TensorFlow) holds part of it, or XLA_PYTHON_CLIENT_MEM_FRACTION (default .75) asks for more than is free"
	if w.Free.Known && w.Capacity.Known {
		cause += " (CUDA reported " + grammar.HumanBytes(w.Free.Bytes) + " free of " + grammar.HumanBytes(w.Capacity.Bytes) + ")"
	}
	cause += ". The job runs on with less, and fails later if a step needs more than it got."
	return []string{
		cause,
		"Find the other holder: nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv lists the processes on the GPU; memory a library holds in the job's own process shows under the job's pid.",
		"If the GPU is shared on purpose, give each process its share: XLA_PYTHON_CLIENT_MEM_FRACTION below the fraction that is free (e.g. .45 for each of two jobs), and cap or release the other library's memory pool.",
		"XLA_PYTHON_CLIENT_PREALLOCATE=false grows the pool on demand instead of reserving it at start-up, but growth is refused and backs off the same way when the GPU is full, and on-demand allocation fragments more.",
	}
}

func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
