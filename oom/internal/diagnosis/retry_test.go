// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/startup"
)

// TestRetryRules: each rule decides a real failure, read into the fields
// its family and the allocator's records give (oom/testdata/real and
// oom/testdata/jobs captures, the family Examples).
func TestRetryRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		r       grammar.Report
		f       Facts
		rule    string
		verdict string
		missing string
	}{
		{"E1000 doc: 49.34G of 32.00G", grammar.Report{Code: grammar.CodeHbm, Backend: grammar.BackendTPU, Used: b(52978421596), Capacity: b(34359738368)},
			Facts{}, "compile time", RetryFutile, ""},
		// cuda_async_device_put: 93.13 GiB against CUDA's 79.18 GiB total
		{"larger than the GPU", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-cuda-async-allocator", Requested: b(100000000000), Free: b(20701184000), Capacity: b(85017493504)},
			Facts{}, "larger than the device", RetryFutile, ""},
		// vmm_device_put: "allocation_size=100000595968B, pa_budget=63763120128B"
		{"larger than the PA budget", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-vmm-allocator", Requested: b(100000595968), Used: b(0), PoolLimit: b(63763120128)},
			Facts{}, "larger than the pool", RetryFutile, ""},
		{"the driver's own status", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-driver-status", Program: "jit_broadcast_in_dim"},
			Facts{}, "another holder named", RetryMayHelp, ""},
		{"no context: total memory reported 34089730048", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-driver-context-init", Capacity: b(34089730048)},
			Facts{}, "another holder named", RetryMayHelp, ""},
		{"refusals counted before the status", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(214748364800)},
			Facts{Attempts: 2}, "driver refused before the failure", RetryMayHelp, ""},
		{"refusals in the record", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(214748364800), AttemptsInText: 1},
			Facts{}, "driver refused before the failure", RetryMayHelp, ""},
		// refusals of host memory say nothing of the GPU
		{"host memory refused before", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", MemorySpace: "host", Requested: b(268435456)},
			Facts{Attempts: 2}, "repeat", RetryUnknown, MissingJobIdentity},
		{"cudaMallocAsync refused the request", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-cuda-async-allocator", Requested: b(1073741824), Free: b(2147483648), Capacity: b(85095874560)},
			Facts{}, "driver refused the request", RetryMayHelp, ""},
		{"StreamExecutor refused the request itself", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(12000000000), OwnRefused: true},
			Facts{}, "driver refused the request", RetryMayHelp, ""},
		// allocator_dump/growth_failed.txt: 1.50GiB requested, 7.00GiB "free" with the unclaimed bytes
		{"pool could not grow", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-bfc-allocator", Requested: b(1610612736), Free: b(7516192768), Cause: grammar.CauseExhaustion},
			Facts{}, "pool could not grow", RetryMayHelp, ""},
		// mem_fraction_fragmented: 1.50GiB, 1.96GiB free, no chunk
		{"fragmented pool", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(1610612736), Free: b(2104533975), PoolLimit: b(4252017623), Cause: grammar.CauseFragmentation},
			Facts{}, "fragmentation", RetryMayHelp, ""},
		// solver_workspace: 258.11 MiB requested, InUse 3.87 GiB of a 3.96 GiB pool
		{"own pool filled", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-jaxlib-workspace", Framework: grammar.FrameworkJAX, Requested: b(270648320), Free: b(100642324), InUse: b(4155380859), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			Facts{}, "own pool filled", RetryFutile, ""},
		{"own pool filled, framework unknown", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-jaxlib-workspace", Requested: b(270648320), Free: b(100642324), InUse: b(4155380859), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			Facts{}, "own pool filled", RetryUnknown, MissingPoolBasis},
		{"own pool filled, pool set at start as a share", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-jaxlib-workspace", Requested: b(270648320), Free: b(100642324), InUse: b(4155380859), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			Facts{Start: startup.Device{Pool: b(4252017623), PoolBasis: startup.BasisShare}}, "own pool filled", RetryFutile, ""},
		// TensorFlow 1.x "totalMemory: 11.17GiB freeMemory: 497.25MiB" at start-up, then a pool of 272 MiB filled:
		// the pool was the memory free at start, so others held the rest.
		{"held at start beats own pool filled", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-bfc-allocator", Framework: grammar.FrameworkTensorFlow,
			Requested: b(150994944), InUse: b(200000000), PoolLimit: b(285212672), Cause: grammar.CauseExhaustion},
			Facts{Start: startup.Device{Free: b(521404416), FreeTotal: b(11993266176), FreeSource: "tensorflow", Pool: b(285212672), PoolBasis: startup.BasisFreeAtStart}},
			"held at start", RetryMayHelp, ""},
		{"TensorFlow's pool from a free device", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-bfc-allocator", Framework: grammar.FrameworkTensorFlow,
			Requested: b(150994944), InUse: b(11000000000), PoolLimit: b(11081000000), Cause: grammar.CauseExhaustion},
			Facts{Start: startup.Device{Free: b(11700000000), FreeTotal: b(11993266176), FreeSource: "tensorflow", Pool: b(11081000000), PoolBasis: startup.BasisFreeAtStart}},
			"own pool filled", RetryFutile, ""},
		{"TensorFlow's pool, free at start unknown", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-bfc-allocator", Framework: grammar.FrameworkTensorFlow,
			Requested: b(150994944), InUse: b(11000000000), PoolLimit: b(11081000000), Cause: grammar.CauseExhaustion},
			Facts{Start: startup.Device{Pool: b(11081000000), PoolBasis: startup.BasisFreeAtStart}}, "own pool filled", RetryUnknown, MissingPoolBasis},
		{"larger than the device, from its model", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(100000000000)},
			Facts{Start: startup.Device{Model: "NVIDIA H100 80GB HBM3", Capacity: b(84942979072), CapacitySource: "model"}}, "larger than the device", RetryFutile, ""},
		{"larger than the device beats held at start", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(100000000000)},
			Facts{Start: startup.Device{Capacity: b(84942979072), Free: b(20000000000), FreeTotal: b(85520809984), FreeSource: "nvidia-smi"}}, "larger than the device", RetryFutile, ""},
		// gpu_hlo_schedule.cc (2025-03+): "The byte size of input/output arguments (100000000000) exceeds the base limit (63763120128)"
		{"the scheduler's plan over its base", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Framework: grammar.FrameworkJAX, Requested: b(2000000)},
			Facts{Start: startup.Device{PlanPeak: b(100000000000), PlanLimit: b(63763120128), PlanSource: startup.PlanScheduler}}, "plan over the pool", RetryFutile, ""},
		// hlo_rematerialization.cc for an autotuner's candidate: "below 3.76GiB … only reduced to 5.59GiB": under the pool
		{"a small module's rematerialization proves nothing", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Framework: grammar.FrameworkJAX, Requested: b(2000000)},
			Facts{Start: startup.Device{Pool: b(63763120128), PoolBasis: startup.BasisShare, PlanPeak: b(6000500004), PlanLimit: b(4037430749), PlanSource: startup.PlanRematerialization}}, "repeat", RetryUnknown, MissingJobIdentity},
		{"a repeat", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(2000000)},
			Facts{Job: true, Earlier: 1}, "repeat", RetryFutile, ""},
		{"a first attempt", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(2000000)},
			Facts{Job: true}, "repeat", RetryUnknown, MissingEarlier},
		{"repeats off", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(2000000)},
			Facts{Job: true, Earlier: 1, RepeatsOff: true}, "", RetryUnknown, ""},
		{"a repeat of memory held at start is not futile", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(2000000)},
			Facts{Job: true, Earlier: 1, Start: startup.Device{Free: b(5000000000), FreeTotal: b(85520809984), FreeSource: "nvidia-smi"}}, "held at start", RetryMayHelp, ""},
		{"own pool filled, but a refusal came first", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-jaxlib-workspace", Requested: b(270648320), Free: b(100642324), InUse: b(4155380859), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			Facts{Attempts: 1}, "driver refused before the failure", RetryMayHelp, ""},
		// the pool never reached its limit: something else held the rest
		{"pool below its limit", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-jaxlib-workspace", Requested: b(270648320), Free: b(100642324), InUse: b(4155380859), PoolSize: b(4155380859), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			Facts{}, "repeat", RetryUnknown, MissingJobIdentity},
		{"E0100 doc: short of free HBM", grammar.Report{Code: grammar.CodeBuffer, Backend: grammar.BackendTPU, Requested: b(8388608), Free: b(6742344), Cause: grammar.CauseExhaustion},
			Facts{}, "repeat", RetryUnknown, MissingJobIdentity},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := Decision{Verdict: c.verdict, Rule: c.rule, Missing: c.missing}
			if got := Judge(&c.r, c.f); got != want {
				t.Errorf("Judge: %+v, want %+v", got, want)
			}
			r := c.r
			if got := Decide(&r, c.f); got != want || r.Retry != c.verdict {
				t.Errorf("Decide: %+v, retry %q", got, r.Retry)
			}
		})
	}
}

// TestDecideLeadsWithHeldMemory: where memory held outside the program
// decides, the action is to free it and the advice starts there.
func TestDecideLeadsWithHeldMemory(t *testing.T) {
	r := grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(214748364800),
		Action: grammar.ActionShrinkFootprint, Remediation: []string{"Lower the batch size."}}
	if rule := Decide(&r, Facts{Attempts: 2}).Rule; rule != "driver refused before the failure" {
		t.Fatalf("rule %q", rule)
	}
	if r.Action != grammar.ActionFreeHeldMemory || len(r.Remediation) != 2 ||
		!strings.Contains(r.Remediation[0], "(the GPU driver refused 2 allocations before it)") || r.Remediation[1] != "Lower the batch size." {
		t.Errorf("action %q, advice %q", r.Action, r.Remediation)
	}
	// Already freeing held memory: nothing is added.
	r = grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-driver-status", Action: grammar.ActionFreeHeldMemory, Remediation: []string{"x"}}
	Decide(&r, Facts{})
	if len(r.Remediation) != 1 {
		t.Errorf("advice %q", r.Remediation)
	}
}

// Every rule is named once, says when it holds and why.
func TestRetryRulesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, rule := range RetryRules {
		if seen[rule.Name] || rule.Condition == "" || rule.Evidence == "" {
			t.Errorf("rule %q: a duplicate name or no condition or evidence", rule.Name)
		}
		seen[rule.Name] = true
		if rule.Verdict != RetryFutile && rule.Verdict != RetryMayHelp {
			t.Errorf("rule %q: verdict %q", rule.Name, rule.Verdict)
		}
	}
}
