// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// TestRetryRules: each rule decides a real failure, read into the fields
// its family and the allocator's records give (oom/testdata/real and
// oom/testdata/jobs captures, the family Examples).
func TestRetryRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		r       grammar.Report
		refused int // the driver's refusals a caller counted before
		rule    string
		verdict string
	}{
		{"E1000 doc: 49.34G of 32.00G", grammar.Report{Code: grammar.CodeHbm, Backend: grammar.BackendTPU, Used: b(52978421596), Capacity: b(34359738368)},
			0, "compile time", RetryFutile},
		// cuda_async_device_put: 93.13 GiB against CUDA's 79.18 GiB total
		{"larger than the GPU", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-cuda-async-allocator", Requested: b(100000000000), Free: b(20701184000), Capacity: b(85017493504)},
			0, "larger than the device", RetryFutile},
		// vmm_device_put: "allocation_size=100000595968B, pa_budget=63763120128B"
		{"larger than the PA budget", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-vmm-allocator", Requested: b(100000595968), Used: b(0), PoolLimit: b(63763120128)},
			0, "larger than the pool", RetryFutile},
		{"the driver's own status", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-driver-status", Program: "jit_broadcast_in_dim"},
			0, "another holder named", RetryMayHelp},
		{"no context: total memory reported 34089730048", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-driver-context-init", Capacity: b(34089730048)},
			0, "another holder named", RetryMayHelp},
		{"refusals counted before the status", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(214748364800)},
			2, "driver refused before the failure", RetryMayHelp},
		{"refusals in the record", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(214748364800), AttemptsInText: 1},
			0, "driver refused before the failure", RetryMayHelp},
		// refusals of host memory say nothing of the GPU
		{"host memory refused before", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", MemorySpace: "host", Requested: b(268435456)},
			2, "", RetryUnknown},
		{"cudaMallocAsync refused the request", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-cuda-async-allocator", Requested: b(1073741824), Free: b(2147483648), Capacity: b(85095874560)},
			0, "driver refused the request", RetryMayHelp},
		{"StreamExecutor refused the request itself", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(12000000000), OwnRefused: true},
			0, "driver refused the request", RetryMayHelp},
		// allocator_dump/growth_failed.txt: 1.50GiB requested, 7.00GiB "free" with the unclaimed bytes
		{"pool could not grow", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-bfc-allocator", Requested: b(1610612736), Free: b(7516192768), Cause: grammar.CauseExhaustion},
			0, "pool could not grow", RetryMayHelp},
		// mem_fraction_fragmented: 1.50GiB, 1.96GiB free, no chunk
		{"fragmented pool", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-allocator-status", Requested: b(1610612736), Free: b(2104533975), PoolLimit: b(4252017623), Cause: grammar.CauseFragmentation},
			0, "fragmentation", RetryMayHelp},
		// solver_workspace: 258.11 MiB requested, InUse 3.87 GiB of a 3.96 GiB pool
		{"own pool filled", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-jaxlib-workspace", Requested: b(270648320), Free: b(100642324), InUse: b(4155380859), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			0, "own pool filled", RetryFutile},
		{"own pool filled, but a refusal came first", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-jaxlib-workspace", Requested: b(270648320), Free: b(100642324), InUse: b(4155380859), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			1, "driver refused before the failure", RetryMayHelp},
		// the pool never reached its limit: something else held the rest
		{"pool below its limit", grammar.Report{Code: grammar.CodeGeneric, Family: "gpu-jaxlib-workspace", Requested: b(270648320), Free: b(100642324), InUse: b(4155380859), PoolSize: b(4155380859), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			0, "", RetryUnknown},
		{"E0100 doc: short of free HBM", grammar.Report{Code: grammar.CodeBuffer, Backend: grammar.BackendTPU, Requested: b(8388608), Free: b(6742344), Cause: grammar.CauseExhaustion},
			0, "", RetryUnknown},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Judge(&c.r, Facts{Attempts: c.refused}).Rule; got != c.rule {
				t.Errorf("rule %q, want %q", got, c.rule)
			}
			if got := Judge(&c.r, Facts{Attempts: c.refused}).Verdict; got != c.verdict {
				t.Errorf("verdict %q, want %q", got, c.verdict)
			}
			r := c.r
			if got := Decide(&r, Facts{Attempts: c.refused}).Rule; got != c.rule || r.Retry != c.verdict {
				t.Errorf("Decide: rule %q retry %q", got, r.Retry)
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
