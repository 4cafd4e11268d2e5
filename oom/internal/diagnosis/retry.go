// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/startup"
)

// Retry verdicts (Report.Retry, attribute xla.oom.retry): whether the same program again can succeed.
const (
	RetryFutile  = "futile"   // it fails the same way again
	RetryMayHelp = "may_help" // it depended on something outside the program (memory held elsewhere, fragmentation)
	RetryUnknown = "unknown"  // the log does not show which
)

// Facts are what the whole job says of a failure beyond its own records.
type Facts struct {
	Attempts int            // the driver's refusals before the failure, in its stream and its records
	Start    startup.Device // the failing device and its pool at the process's start-up, the compiler's plan
	Job      bool           // the failure's job is named, so the repeat rule applies
	Earlier  int            // the job's earlier attempts that failed the same way
	// RepeatsOff: the repeat rule is turned off (it neither decides nor lacks a fact).
	RepeatsOff bool
}

// Decision is a verdict, the rule that decided it and, for unknown, the rule that would have decided and
// the fact it lacked.
type Decision struct {
	Verdict string
	Rule    string
	Missing string // one of the Missing* facts; "" unless the verdict is unknown
}

// The facts a rule can lack (attribute xla.oom.retry.missing).
const (
	MissingPoolBasis   = "pool_basis"      // whether the pool is a share of the device or of the memory free at start
	MissingRequested   = "requested_size"  // the failing request's size
	MissingJobIdentity = "job_identity"    // a resource attribute that names the job
	MissingEarlier     = "earlier_attempt" // an earlier attempt of the job that failed the same way
)

// RuleRepeat names the repeat rule, whose fact (Facts.Earlier) a caller's history of the job supplies.
const RuleRepeat = "repeat"

// retryCase is what a retry rule reads.
type retryCase struct {
	r *grammar.Report
	f Facts
}

// retryRule is one row of the verdict table; the first that holds decides.
type retryRule struct {
	Name      string // short, unique: Decision.Rule
	Verdict   string
	when      func(c retryCase) bool
	lacks     func(c retryCase) string // the fact without which the rule cannot hold, where all else does
	Condition string                   // when, in words (docs/incidents.md)
	Evidence  string
	Holder    bool // memory held outside the program decides, so the action is to free it
	Assembled bool // it reads facts only a whole failure holds (the allocator's Stats records, its stream, its job)
	Final     bool // no fact of the job can overturn it: it comes before memory held at start
	Fallback  bool // it lacks a fact on every first failure: named for unknown only where no other rule is
}

// RetryRules is the one table of retry verdicts. A request no device or fixed pool could hold fails whatever
// else holds memory; then memory held outside the program; the pool's own use only where the pool is the
// same on every run. docs/incidents.md repeats the evidence (TestRetryRulesDocumented).
var RetryRules = []retryRule{
	{
		Name: "compile time", Verdict: RetryFutile, Final: true, when: compileTime,
		Condition: "the code is E1000, E1001 or E3000 (phase compile), or a TPU failure reads as compile-time without one",
		Evidence: "E1000, E1001 and E3000 are compile-time errors (https://openxla.org/xla/errors/error_1000, error_1001, error_3000): " +
			"the compiler sizes the program against the chip before anything runs, so nothing another process does changes it; " +
			"XLA prints \"XLA:TPU compile permanent error\"; jax's own test of the 2026 wording \"Ran out of memory on HBM, the total " +
			"memory required for HLO temporaries (…) exceeds available HBM (…)\" (tests/memories_test.py, test_oom) raises it from " +
			"compile() alone, before any execution. A TPU compiler plans memory without running anything, so a " +
			"compile-time TPU failure of a wording new to xla_oom (no catalog code) is read the same way.",
	},
	{
		Name: "larger than the device", Verdict: RetryFutile, Final: true, when: requestOverDevice,
		Condition: "`requested` > the device's memory: `capacity` in the record, or the device's total at start-up (TensorFlow's device line, nvidia-smi, the model's memory)",
		Evidence: "One request larger than the whole device's memory cannot fit whatever else is freed (real captures " +
			"cuda_async_device_put and cuda_async_jit: 93.13 and 167.65 GiB against CUDA's 79.18 GiB total). The model " +
			"names its memory (docs/devices.md: an H100 80GB HBM3 reports 79.11 GiB).",
	},
	{
		Name: "larger than the pool", Verdict: RetryFutile, when: func(c retryCase) bool { return requestOverPool(c) && fixedPool(c) },
		lacks: needsFixedPool(requestOverPool),
		Condition: "`requested` > `pool_limit`, where the pool is the same on every run: a configured share of the device " +
			"(XLA since jaxlib 0.4.1, a host pool's limit) or the memory free at start was the whole device",
		Evidence: "One request larger than the allocator's whole pool (pool limit, PA budget): the limit is configuration " +
			"(XLA_PYTHON_CLIENT_MEM_FRACTION of the GPU's total, XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB for pinned host memory), the same " +
			"on every run (real captures device_put, jit_temps, mem_fraction_device_put, vmm_jit, pinned_host_device_put). " +
			"TensorFlow's pool is the memory free at start less a reserve, so it decides only where that was the whole device.",
	},
	{
		Name: "held at start", Verdict: RetryMayHelp, Holder: true, Assembled: true, when: heldAtStart,
		Condition: "at the process's start-up one source printed the failing device's total and free memory (TensorFlow 1's " +
			"`totalMemory: … freeMemory: …`, the nvidia-smi table a job script prints before the program) and others held more " +
			"than max(1 GiB, 5% of the total)",
		Evidence: "TensorFlow (every version) and XLA before jaxlib 0.4.1 size their pool from the memory free at start " +
			"(gpu_device.cc SingleVirtualDeviceMemoryLimit, gpu_helpers.cc before 2022-11-21), so memory held by another " +
			"process shrinks the pool and the failure with it: a TensorFlow job whose device line read `totalMemory: 11.17GiB " +
			"freeMemory: 497.25MiB` failed in a 272 MiB pool, and runs on a free GPU. Since 2022 XLA sizes its pool from the " +
			"total and backs off when the driver refuses it (real jobs shared_gpu_backoff_then_oom, cupy_then_jax_oom).",
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
		Name: RuleRepeat, Verdict: RetryFutile, Assembled: true, when: func(c retryCase) bool { return !c.f.RepeatsOff && c.f.Job && c.f.Earlier > 0 },
		lacks: repeatLacks, Fallback: true,
		Condition: "an earlier attempt of the same job (`k8s.job.name`, `k8s.jobset.name`, `slurm.job.id` or `service.name`) failed " +
			"with the same code and program and a request within ±1%; a later attempt is a process started after that failure, " +
			"or, undated, another stream failing an incident window or more later; never another host of the same attempt",
		Evidence: "The same job failing the same way on a later attempt is the strongest evidence there is: the restart " +
			"already ran, on whatever device it got, and the program did not fit (real job autotune_in_training_step fails " +
			"the same way on every run).",
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
		lacks: needsFixedPool(ownPoolFilledAnyPool),
		Condition: "`in_use` + `requested` > `pool_limit` (the allocator's `Stats:` and summary, read on the whole failure), the pool " +
			"claimed its whole limit where its summary says so (pool size = pool limit), no refusal before or of the request, not " +
			"fragmentation, device memory, and the pool is the same on every run (as for the rule above)",
		Evidence: "The allocator's own pool was set up without a refusal and the program's own allocations (InUse: this process's " +
			"live buffers in the pool, xla/tsl/framework/bfc_allocator.cc Stats) leave less than the request below its limit " +
			"(XLA_PYTHON_CLIENT_MEM_FRACTION of the GPU): with the whole limit free of other holders the request still does not " +
			"fit, so the same program fills the pool again (real job autotune_in_training_step: pool 3.96 GiB, InUse 3.96 GiB, " +
			"an 18 MiB request). Rules that find another holder come first, so this never overrides them.",
	},
	{
		Name: "plan over the pool", Verdict: RetryFutile, Assembled: true, when: planOverPool,
		lacks: needsFixedPool(func(c retryCase) bool { return planOver(c, poolLimit(c)) }),
		Condition: "the compiler's plan exceeds the pool before anything ran: gpu_hlo_schedule.cc's input/output bytes over its " +
			"base limit, or hlo_rematerialization.cc's peak (`only reduced to N`) over the pool's limit, or either over the " +
			"device's memory; the pool the same on every run",
		Evidence: "XLA's GPU scheduler takes the pool's limit as its base (jaxlib passes the allocator's bytes_limit as " +
			"device_memory_size): \"The byte size of input/output arguments (X) exceeds the base limit (Y)\" says the program's " +
			"own inputs and outputs exceed the pool, and a rematerialization peak above the pool's whole limit cannot run in it " +
			"(real capture jit_output). The rematerialization line also prints for the autotuner's small candidate modules, " +
			"whose peaks never reach the pool, and alone (below the pool) proves nothing.",
	},
}

// poolLimit is the pool's limit: the record's, else the one set at start-up.
func poolLimit(c retryCase) grammar.Size {
	if c.r.PoolLimit.Known {
		return c.r.PoolLimit
	}
	return c.f.Start.Pool
}

// fixedPool: the pool is the same on every run, as far as the log shows.
func fixedPool(c retryCase) bool {
	switch {
	case c.r.MemorySpace == "host" || c.r.Family == "gpu-vmm-allocator":
		return true // a configured limit (host pool, VMM's pa_budget)
	case c.f.Start.WholeFree():
		return true
	case c.f.Start.PoolBasis != "":
		return c.f.Start.PoolBasis == startup.BasisShare
	}
	switch c.r.Framework {
	case grammar.FrameworkJAX, grammar.FrameworkPyTorchXLA:
		return true // XLA's client sizes its pool from the total since jaxlib 0.4.1
	}
	return false
}

// needsFixedPool is a rule's lacks: the pool's basis, where the rest holds.
func needsFixedPool(rest func(c retryCase) bool) func(c retryCase) string {
	return func(c retryCase) string {
		if rest(c) && !fixedPool(c) {
			return MissingPoolBasis
		}
		return ""
	}
}

func ownPoolFilledAnyPool(c retryCase) bool {
	r := c.r
	if !r.InUse.Known || !r.PoolLimit.Known || !r.Requested.Known || r.PoolLimit.Bytes <= 0 {
		return false
	}
	if r.PoolSize.Known && r.PoolSize.Bytes < r.PoolLimit.Bytes {
		return false // the pool never got its limit: something else held the rest
	}
	return r.InUse.Bytes+r.Requested.Bytes > r.PoolLimit.Bytes && c.f.Attempts == 0 && !r.OwnRefused &&
		r.Cause != grammar.CauseFragmentation && r.MemorySpace != "host"
}

// ownPoolFilled: the pool's own in-use bytes leave no room for the request under its limit.
func ownPoolFilled(c retryCase) bool { return ownPoolFilledAnyPool(c) && fixedPool(c) }

// compileTime: a compile-phase code, or a TPU failure read as compile-time; not a GPU one (the autotuner
// allocates device memory that others may hold).
func compileTime(c retryCase) bool {
	switch c.r.Code {
	case grammar.CodeHbm, grammar.CodeVmem, grammar.CodeSparseCore:
		return true
	}
	return c.r.Phase == grammar.PhaseCompile && c.r.Backend == grammar.BackendTPU
}

// capacity is the device's memory: the record's, else the one known at start-up.
func capacity(c retryCase) grammar.Size {
	if c.r.Capacity.Known {
		return c.r.Capacity
	}
	return c.f.Start.Capacity
}

func requestOverDevice(c retryCase) bool {
	d := capacity(c)
	return d.Bytes > 0 && larger(c.r.Requested, d) && c.r.MemorySpace != "host"
}

func heldAtStart(c retryCase) bool {
	_, held := c.f.Start.Held()
	return held && c.r.MemorySpace != "host"
}

func requestOverPool(c retryCase) bool {
	p := poolLimit(c)
	return p.Bytes > 0 && larger(c.r.Requested, p)
}

// planOver: the compiler's plan exceeds limit (its own base limit for the scheduler's line).
func planOver(c retryCase, limit grammar.Size) bool {
	s := c.f.Start
	if !s.PlanPeak.Known {
		return false
	}
	if s.PlanSource == startup.PlanScheduler && larger(s.PlanPeak, s.PlanLimit) {
		return true
	}
	return limit.Bytes > 0 && larger(s.PlanPeak, limit)
}

func planOverPool(c retryCase) bool {
	if d := capacity(c); d.Bytes > 0 && c.f.Start.PlanPeak.Known && larger(c.f.Start.PlanPeak, d) {
		return true
	}
	return planOver(c, poolLimit(c)) && fixedPool(c)
}

func repeatLacks(c retryCase) string {
	switch {
	case c.f.RepeatsOff:
		return ""
	case !c.f.Job:
		return MissingJobIdentity
	case c.f.Earlier == 0:
		return MissingEarlier
	}
	return ""
}

// holderOutsideNamed: the family's message itself says the memory is held outside the program.
func holderOutsideNamed(c retryCase) bool {
	return c.r.Family == "gpu-driver-status" || c.r.Family == "gpu-driver-context-init"
}

func driverRefusedBefore(c retryCase) bool { return c.f.Attempts > 0 && c.r.MemorySpace != "host" }

// driverRefusedRequest: cudaMallocAsync asks the driver for every request, so its failure is the driver's refusal.
func driverRefusedRequest(c retryCase) bool {
	return (c.r.OwnRefused || c.r.Family == "gpu-cuda-async-allocator") && c.r.MemorySpace != "host"
}

// Judge is the decision on r given f; f.Attempts counts at least the record's own refusals.
func Judge(r *grammar.Report, f Facts) Decision {
	f.Attempts = max(f.Attempts, r.AttemptsInText)
	c := retryCase{r: r, f: f}
	for i := range RetryRules {
		if RetryRules[i].when(c) {
			return Decision{Verdict: RetryRules[i].Verdict, Rule: RetryRules[i].Name}
		}
	}
	d := Decision{Verdict: RetryUnknown}
	for i := range RetryRules {
		rule := &RetryRules[i]
		if rule.lacks == nil || rule.Fallback && d.Rule != "" {
			continue
		}
		if m := rule.lacks(c); m != "" {
			if d.Rule, d.Missing = rule.Name, m; !rule.Fallback {
				return d
			}
		}
	}
	return d
}

// WithRepeat is d once the job's history shows the failure repeats an earlier attempt: the repeat rule's,
// unless a rule before it in the table decided d (a gateway's reading of a failure an agent decided).
func WithRepeat(d Decision) Decision {
	for i := range RetryRules {
		switch rule := &RetryRules[i]; {
		case rule.Fallback:
			return Decision{Verdict: rule.Verdict, Rule: rule.Name}
		case rule.Name == d.Rule && d.Verdict != RetryUnknown:
			return d
		}
	}
	return d
}

// RecordVerdict is the verdict r's own record supports whatever its job says: futile only by a Final
// rule (the connector's reading of a record an older processor gave no verdict).
func RecordVerdict(r *grammar.Report) string {
	d := Judge(r, Facts{})
	if d.Verdict == RetryFutile && !ruleNamed(d.Rule).Final {
		return RetryUnknown
	}
	return d.Verdict
}

// Decide sets a whole failure's verdict from f and returns the decision; memory held outside the program
// makes freeing it the action and first step.
func Decide(r *grammar.Report, f Facts) Decision {
	d := Judge(r, f)
	r.Retry = d.Verdict
	if d.Verdict == RetryUnknown {
		return d
	}
	if rule := ruleNamed(d.Rule); rule.Holder && r.Action != grammar.ActionFreeHeldMemory {
		r.Action = grammar.ActionFreeHeldMemory
		r.Remediation = append([]string{heldMemoryStep(max(f.Attempts, r.AttemptsInText), f.Start)}, r.Remediation...)
	}
	return d
}

func ruleNamed(name string) *retryRule {
	for i := range RetryRules {
		if RetryRules[i].Name == name {
			return &RetryRules[i]
		}
	}
	return &retryRule{}
}

func heldMemoryStep(attempts int, start startup.Device) string {
	s := "Memory outside this program's pool was taken when it failed"
	if held, ok := start.Held(); ok {
		s = "Other processes held " + grammar.HumanBytes(held.Bytes) + " of this GPU when the program started (" + start.FreeSource + ")"
		if len(start.Holders) > 0 {
			s += ": " + strings.Join(start.Holders, ", ")
		}
	} else if attempts > 0 {
		s += " (the GPU driver refused " + oneOrMany(attempts, "an allocation", strconv.Itoa(attempts)+" allocations") + " before it)"
	}
	return s + ": find the other process or library on this GPU (nvidia-smi --query-compute-apps=pid,used_memory --format=csv) " +
		"and stop it or give each its own share; a restart on a free GPU may succeed."
}
