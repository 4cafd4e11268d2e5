// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomattr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

func fullReport() oom.Report {
	return oom.Report{
		Code: "E0101", Name: "RuntimeProgramAllocationFailure", Category: "Runtime: Program Allocation Failure",
		Phase: oom.PhaseRuntime, DocURL: "https://openxla.org/xla/errors/error_0101",
		Backend: oom.BackendTPU, MemorySpace: "hbm",
		Requested: oom.KnownSize(31664646390), Free: oom.KnownSize(154811761), Used: oom.KnownSize(3),
		Capacity: oom.KnownSize(4), Exceeded: oom.KnownSize(-5), Reserved: oom.KnownSize(0), Reservable: oom.KnownSize(154811761),
		PoolLimit: oom.KnownSize(6),
		Program:   "jit_step", Replica: 0, HasReplica: true, Partition: 34, HasPartition: true,
		Device: "0x0x1_HBM0", Cause: oom.CauseExhaustion, Remediation: []string{"first", "second"},
		Retry: oom.RetryUnknown, Action: oom.ActionShrinkFootprint,
	}
}

// exception.type is written and read back; one the record already carries
// (set by the program's own instrumentation) is kept.
func TestExceptionType(t *testing.T) {
	r := fullReport()
	r.ExceptionType = "jax.errors.JaxRuntimeError"
	attrs := pcommon.NewMap()
	Put(r, attrs)
	got, ok := Get(attrs)
	require.True(t, ok)
	assert.Equal(t, "jax.errors.JaxRuntimeError", got.ExceptionType)

	attrs = pcommon.NewMap()
	attrs.PutStr(ExceptionType, "app.TrainingFailed")
	Put(r, attrs)
	v, _ := attrs.Get(ExceptionType)
	assert.Equal(t, "app.TrainingFailed", v.Str())
}

func TestPutGetRoundTrip(t *testing.T) {
	attrs := pcommon.NewMap()
	Put(fullReport(), attrs)
	got, ok := Get(attrs)
	require.True(t, ok)
	want := fullReport()
	want.Family = "" // not part of the attribute contract
	assert.Equal(t, want, got)
	v, _ := attrs.Get(ErrorType)
	assert.Equal(t, "E0101", v.Str(), "error.type carries the XLA code")
	v, _ = attrs.Get(Reserved)
	assert.Equal(t, int64(0), v.Int(), "a known zero size is written, not dropped")
}

func TestPutLeavesOutUnknown(t *testing.T) {
	attrs := pcommon.NewMap()
	Put(oom.Report{Code: "E0007", Name: "ResourceExhausted", Phase: oom.PhaseRuntime, Remediation: []string{"x"}}, attrs)
	assert.Equal(t, map[string]any{
		ErrorCode: "E0007", ErrorName: "ResourceExhausted", ErrorPhase: "runtime", ErrorType: "E0007",
		Remediation: []any{"x"},
	}, attrs.AsRaw())
}

func TestGetIgnoresWrongTypes(t *testing.T) {
	attrs := pcommon.NewMap()
	attrs.PutStr(ErrorCode, "E0100")
	attrs.PutStr(Requested, "8M") // a string where an int belongs is not trusted
	attrs.PutInt(Program, 7)
	r, ok := Get(attrs)
	require.True(t, ok)
	assert.False(t, r.Requested.Known)
	assert.Empty(t, r.Program)

	attrs = pcommon.NewMap()
	attrs.PutInt(ErrorCode, 100)
	_, ok = Get(attrs)
	assert.False(t, ok, "a non-string code is not a tag")
	assert.True(t, Tagged(attrs), "but the key is taken, so the processor leaves the record alone")
}
