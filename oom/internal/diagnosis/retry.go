// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strconv"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Retry verdicts (Report.Retry, attribute xla.oom.retry): whether the same program again can succeed.
const (
	RetryFutile  = "futile"   // it fails the same way again
	RetryMayHelp = "may_help" // it depended on something outside the program (memory held elsewhere, fragmentation)
	RetryUnknown = "unknown"  // the record does not show which
)

// retryCase is what a retry rule reads: attemptsBefore counts the driver's refusals before the failure;
// ownRefused: the driver refused the failing request itself.
type retryCase struct {
	r              *grammar.Report
	attemptsBefore int
	ownRefused     bool
}

// retryRule is one row of the verdict table; the first that holds decides, none means RetryUnknown.
type retryRule struct {
	Name      string // short, unique: RetryRule returns it
	Verdict   string
	when      func(c retryCase) bool
	Condition string // when, in words (docs/incidents.md)
	Evidence  string
	Holder    bool // memory held outside the program decides, so the action is to free it
	Assembled bool // it reads facts only a whole failure holds (the allocator's Stats records)
}

// RetryRules is the one table of retry verdicts; sizes come first (a request no device could hold fails
// whatever else holds memory). docs/incidents.md repeats the evidence (TestRetryRulesDocumented).
var RetryRules = []retryRule{
	{
		Name: "compile time", Verdict: RetryFutile, when: compileTime,
		Condition: "the code is E1000, E1001 or E3000 (phase compile), or a TPU failure reads as compile-time without one",
		Evidence: "E1000, E1001 and E3000 are compile-time errors (https://openxla.org/xla/errors/error_1000, error_1001, error_3000): " +
			"the compiler sizes the program against the chip before anything runs, so nothing another process does changes it; " +
			"XLA prints \"XLA:TPU compile permanent error\"; jax's own test of the 2026 wording \"Ran out of memory on HBM, the total " +
			"memory required for HLO temporaries (…) exceeds available HBM (…)\" (tests/memories_test.py, test_oom) raises it from " +
			"compile() alone, before any execution. A TPU compiler plans memory without running anything, so a " +
			"compile-time TPU failure of a wording new to xla_oom (no catalog code) is read the same way.",
	},
	{
		Name: "larger than the device", Verdict: RetryFutile, when: requestOverDevice,
		Condition: "`requested` > `capacity`",
		Evidence: "One request larger than the whole device's memory cannot fit whatever else is freed (real captures " +
			"cuda_async_device_put and cuda_async_jit: 93.13 and 167.65 GiB against CUDA's 79.18 GiB total).",
	},
	{
		Name: "larger than the pool", Verdict: RetryFutile, when: requestOverPool,
		Condition: "`requested` > `pool_limit`",
		Evidence: "One request larger than the allocator's whole pool (pool limit, PA budget): the limit is configuration " +
			"(XLA_PYTHON_CLIENT_MEM_FRACTION of the GPU, XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB for pinned host memory), the same " +
			"on every run (real captures device_put, jit_temps, mem_fraction_device_put, vmm_jit, pinned_host_device_put).",
	},
	{
		Name: "another holder named", Verdict: RetryMayHelp, Holder: true, when: holderOutsideNamed,
		Condition: "family `gpu-driver-status` or `gpu-driver-context-init`",
		Evidence: "The GPU driver's own out-of-memory status after XLA's pool backed off (gpu-driver-status), or no memory " +
			"left for a new driver context (gpu-driver-context-init): the memory is held outside this program " +
			"(real job two_jobs_second: a second JAX job beside the first).",
	},
	{
		Name: "driver refused before the failure", Verdict: RetryMayHelp, Holder: true, when: driverRefusedBefore,
		Condition: "the driver refused device memory before the failure: in its record (`xla.oom.attempts` beyond the request itself) or in its stream's records before it (the attempts the failure stage gave it)",
		Evidence: "The GPU driver refused allocations with CUDA_ERROR_OUT_OF_MEMORY before the failure (a pool's set-up " +
			"backing off, a pool that could not grow: StreamExecutor, BFC, cuMemAllocAsync): the driver counts every " +
			"process's memory, not XLA's pool. Every real job of oom/testdata/jobs that failed beside another process or " +
			"library (CuPy, a second JAX job, a 58 or 70 GiB holder) logged such refusals.",
	},
	{
		Name: "driver refused the request", Verdict: RetryMayHelp, Holder: true, when: driverRefusedRequest,
		Condition: "the driver refused the failing request itself (a refusal of exactly the request in its record, or cudaMallocAsync's failure line), device memory",
		Evidence: "The GPU driver itself refused the failing request (cuda_executor.cc \"Failed to allocate device memory\", " +
			"cuMemAllocAsync), not XLA's pool accounting: the device as a whole, which other processes share, had no room " +
			"(real jobs platform_near_full_oom and cuda_async_near_full_oom, a 70 GiB holder). A request larger than the device reads so too when the " +
			"record does not print the device's size (real captures platform_device_put, platform_jit).",
	},
	{
		Name: "pool could not grow", Verdict: RetryMayHelp, Holder: true, when: func(c retryCase) bool { return poolCouldNotGrow(AdviceCase{R: c.r}) },
		Condition: "`cause` = exhaustion although free ≥ requested",
		Evidence: "The BFC allocator counted at least the request as free, yet failed for exhaustion: its summary counts bytes " +
			"not yet claimed from the device as free (\"unallocated bytes\", xla/tsl/framework/bfc_allocator.cc), so claiming " +
			"them failed and something outside the pool holds them, as the driver's refused pool growth shows in the real job " +
			"prealloc_false_leak_oom.",
	},
	{
		Name: "fragmentation", Verdict: RetryMayHelp, when: func(c retryCase) bool { return c.r.Cause == grammar.CauseFragmentation },
		Condition: "`cause` = fragmentation (free ≥ requested, no block)",
		Evidence: "Enough memory was free in total but not in one block (https://openxla.org/xla/errors/error_0100, " +
			"error_0101: \"Memory Fragmentation\"; real capture mem_fraction_fragmented): fragmentation is the state of a " +
			"long-running pool, and a restart starts with an empty one.",
	},
	{
		Name: "own pool filled", Verdict: RetryFutile, Assembled: true, when: ownPoolFilled,
		Condition: "`in_use` + `requested` > `pool_limit` (the allocator's `Stats:` and summary, read on the whole failure), the pool " +
			"claimed its whole limit where its summary says so (pool size = pool limit), no refusal before or of the request, not fragmentation, device memory",
		Evidence: "The allocator's own pool was set up without a refusal and the program's own allocations (InUse: this process's " +
			"live buffers in the pool, xla/tsl/framework/bfc_allocator.cc Stats) leave less than the request below its limit " +
			"(XLA_PYTHON_CLIENT_MEM_FRACTION of the GPU): with the whole limit free of other holders the request still does not " +
			"fit, so the same program fills the pool again (real job autotune_in_training_step: pool 3.96 GiB, InUse 3.96 GiB, " +
			"an 18 MiB request). Rules that find another holder come first, so this never overrides them.",
	},
}

// ownPoolFilled: the pool's own in-use bytes leave no room for the request under its limit.
func ownPoolFilled(c retryCase) bool {
	r := c.r
	if !r.InUse.Known || !r.PoolLimit.Known || !r.Requested.Known || r.PoolLimit.Bytes <= 0 {
		return false
	}
	if r.PoolSize.Known && r.PoolSize.Bytes < r.PoolLimit.Bytes {
		return false // the pool never got its limit: something else held the rest
	}
	return r.InUse.Bytes+r.Requested.Bytes > r.PoolLimit.Bytes && c.attemptsBefore == 0 && !c.ownRefused &&
		r.Cause != grammar.CauseFragmentation && r.MemorySpace != "host"
}

// compileTime: a compile-phase code, or a TPU failure read as compile-time; not a GPU one (the autotuner
// allocates device memory that others may hold).
func compileTime(c retryCase) bool {
	switch c.r.Code {
	case grammar.CodeHbm, grammar.CodeVmem, grammar.CodeSparseCore:
		return true
	}
	return c.r.Phase == grammar.PhaseCompile && c.r.Backend == grammar.BackendTPU
}

func requestOverDevice(c retryCase) bool {
	return c.r.Capacity.Bytes > 0 && larger(c.r.Requested, c.r.Capacity)
}

func requestOverPool(c retryCase) bool {
	return c.r.PoolLimit.Bytes > 0 && larger(c.r.Requested, c.r.PoolLimit)
}

// holderOutsideNamed: the family's message itself says the memory is held outside the program.
func holderOutsideNamed(c retryCase) bool {
	return c.r.Family == "gpu-driver-status" || c.r.Family == "gpu-driver-context-init"
}

func driverRefusedBefore(c retryCase) bool { return c.attemptsBefore > 0 && c.r.MemorySpace != "host" }

// driverRefusedRequest: cudaMallocAsync asks the driver for every request, so its failure is the driver's refusal.
func driverRefusedRequest(c retryCase) bool {
	return (c.ownRefused || c.r.Family == "gpu-cuda-async-allocator") && c.r.MemorySpace != "host"
}

func decidingRule(r *grammar.Report, attemptsBefore int) *retryRule {
	c := retryCase{r: r, attemptsBefore: max(attemptsBefore, r.AttemptsInText), ownRefused: r.OwnRefused}
	for i := range RetryRules {
		if RetryRules[i].when(c) {
			return &RetryRules[i]
		}
	}
	return nil
}

// Decide sets a whole failure's verdict from its merged facts and the driver's refusals before it and returns
// the deciding rule ("" for none); memory held outside the program makes freeing it the action and first step.
func Decide(r *grammar.Report, attemptsBefore int) string {
	rule := decidingRule(r, attemptsBefore)
	if rule == nil {
		r.Retry = RetryUnknown
		return ""
	}
	r.Retry = rule.Verdict
	if rule.Holder && r.Action != grammar.ActionFreeHeldMemory {
		r.Action = grammar.ActionFreeHeldMemory
		r.Remediation = append([]string{heldMemoryStep(max(attemptsBefore, r.AttemptsInText))}, r.Remediation...)
	}
	return rule.Name
}

func heldMemoryStep(attempts int) string {
	s := "Memory outside this program's pool was taken when it failed"
	if attempts > 0 {
		s += " (the GPU driver refused " + oneOrMany(attempts, "an allocation", strconv.Itoa(attempts)+" allocations") + " before it)"
	}
	return s + ": find the other process or library on this GPU (nvidia-smi --query-compute-apps=pid,used_memory --format=csv) " +
		"and stop it or give each its own share; a restart on a free GPU may succeed."
}

// RetryVerdict is the retry verdict of r given the driver's refusals a caller counted before it (the larger of
// that and the record's own count is used).
func RetryVerdict(r *grammar.Report, attemptsBefore int) string {
	if rule := decidingRule(r, attemptsBefore); rule != nil {
		return rule.Verdict
	}
	return RetryUnknown
}

// RetryRule is the name of the rule that decides RetryVerdict, "" for none.
func RetryRule(r *grammar.Report, attemptsBefore int) string {
	if rule := decidingRule(r, attemptsBefore); rule != nil {
		return rule.Name
	}
	return ""
}
