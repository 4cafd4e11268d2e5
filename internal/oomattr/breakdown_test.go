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

func breakdownReport() oom.Report {
	r := fullReport()
	r.Breakdown = oom.Breakdown{
		Total: oom.KnownSize(100), Reserved: oom.KnownSize(1), Program: oom.KnownSize(90), Arguments: oom.KnownSize(9),
		Output: oom.KnownSize(0), OutputShared: oom.KnownSize(0), Temp: oom.KnownSize(80), TempFragmentation: oom.KnownSize(2),
		Fragmentation: oom.KnownSize(3), Padding: oom.KnownSize(4), Allocated: oom.KnownSize(5), AvailableAfter: oom.KnownSize(-6),
		Allocations: []oom.Allocation{
			{Size: oom.KnownSize(64), OpName: "jit(f)/dot_general", SourceFile: "model.py", SourceLine: 12, Shape: "f32[8,4]{1,0:T(8,128)}",
				Unpadded: oom.KnownSize(2), Padding: oom.KnownSize(62), Expansion: 32, Label: "fusion.1 = fusion(a, b)", Type: "HLO temp"},
			{Size: oom.KnownSize(128), Shape: "f32[256,128]", Type: "entry parameter"},
			{Size: oom.KnownSize(8), OpName: "jit(f)/add", SourceFile: "a:b.py"},
		},
	}
	return r
}

func TestPutGetBreakdownRoundTrip(t *testing.T) {
	attrs := pcommon.NewMap()
	Put(breakdownReport(), attrs)
	got, ok := Get(attrs)
	require.True(t, ok)
	want := breakdownReport()
	want.Family = ""
	assert.Equal(t, want, got)

	raw := attrs.AsRaw()
	assert.Equal(t, "jit(f)/dot_general", raw[CulpritOp], "the largest allocation naming an operator, not the larger input")
	assert.Equal(t, "model.py:12", raw[CulpritSource])
	assert.Equal(t, int64(64), raw[CulpritSize])
	assert.Equal(t, "f32[8,4]{1,0:T(8,128)}", raw[CulpritShape])
	assert.Equal(t, int64(128), raw[LargestInputSize])
	assert.Equal(t, "f32[256,128]", raw[LargestInputShape])
	assert.Equal(t, int64(-6), raw[AvailableAfter])
	assert.Equal(t, map[string]any{
		AllocationSize: int64(64), AllocationOp: "jit(f)/dot_general", AllocationSource: "model.py:12",
		AllocationShape: "f32[8,4]{1,0:T(8,128)}", AllocationUnpaddedSize: int64(2), AllocationPaddingSize: int64(62),
		AllocationExpansion: 32.0, AllocationLabel: "fusion.1 = fusion(a, b)", AllocationType: "HLO temp",
	}, raw[Allocations].([]any)[0])
}

func TestPutTopBoundsTheList(t *testing.T) {
	attrs := pcommon.NewMap()
	PutTop(breakdownReport(), attrs, 1)
	v, _ := attrs.Get(Allocations)
	assert.Equal(t, 1, v.Slice().Len())

	attrs = pcommon.NewMap()
	PutTop(breakdownReport(), attrs, 0)
	_, ok := attrs.Get(Allocations)
	assert.False(t, ok, "0 lists none")
	_, ok = attrs.Get(CulpritOp)
	assert.True(t, ok, "the culprit is written whatever the list length")
}
