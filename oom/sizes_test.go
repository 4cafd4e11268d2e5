// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// A size in a headline that cannot be represented is left out, not guessed.
func TestOverflowInHeadline(t *testing.T) {
	r, ok := Recognize("RESOURCE_EXHAUSTED: Attempting to allocate 99999999999999T. That was not possible. There are 1.00G free.; (0x0x0_HBM0)")
	if !ok {
		t.Fatal("not recognised")
	}
	if r.Requested.Known || !r.Free.Known || r.Cause != "" {
		t.Errorf("Requested %+v Free %+v Cause %q", r.Requested, r.Free, r.Cause)
	}
	if len(r.Remediation) == 0 {
		t.Error("no remediation")
	}
}

// TestPoolLimitGroup: a family's pool_limit group fills Report.PoolLimit,
// never Capacity, so an allocator's budget does not read as the device.
func TestPoolLimitGroup(t *testing.T) {
	z := newRecognizer([][]grammar.Family{{{
		ID: "gpu-test-pool", Summary: "A test pool.", Kind: grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime,
		Anchor: "Pool exhausted", Expr: `Pool exhausted: ` + grammar.SizeGroup("requested") + ` requested, ` + grammar.SizeGroup("pool_limit") + ` limit`,
	}}}, nil)
	r, ok := z.Recognize("RESOURCE_EXHAUSTED: Pool exhausted: 2.00GiB requested, 40.00GiB limit")
	if !ok {
		t.Fatal("not recognised")
	}
	if r.PoolLimit != grammar.KnownSize(40<<30) || r.Capacity.Known {
		t.Errorf("pool limit %+v, capacity %+v", r.PoolLimit, r.Capacity)
	}
}
