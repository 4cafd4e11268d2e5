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

func fullWarning() oom.Warning {
	return oom.Warning{
		Kind: oom.WarningRematerialization, Family: "xla-compile-remat-shortfall", Phase: oom.PhaseCompile,
		Backend: oom.BackendGPU, Device: "0", Explanation: oom.Explanation(oom.WarningRematerialization),
		Requested: oom.KnownSize(1), Used: oom.KnownSize(75003125004), Free: oom.KnownSize(0), Capacity: oom.KnownSize(60574761232),
	}
}

func TestWarningRoundTrip(t *testing.T) {
	attrs := pcommon.NewMap()
	PutWarning(fullWarning(), attrs)
	got, ok := GetWarning(attrs)
	require.True(t, ok)
	want := fullWarning()
	want.Family = "" // not part of the attribute contract
	assert.Equal(t, want, got, "the phase is restored from the kind")
	assert.False(t, Tagged(attrs), "a warning never carries xla.error.code")
	_, hasType := attrs.Get(ErrorType)
	assert.False(t, hasType, "nor error.type")
	_, hasPhase := attrs.Get(ErrorPhase)
	assert.False(t, hasPhase, "xla.error.* belongs to failures")
	assert.True(t, Warned(attrs))
}

func TestPutWarningLeavesOutUnknown(t *testing.T) {
	attrs := pcommon.NewMap()
	PutWarning(oom.Warning{Kind: oom.WarningAllocatorRetry, Requested: oom.KnownSize(16787702)}, attrs)
	assert.Equal(t, map[string]any{WarningKind: "allocator_retry", Requested: int64(16787702)}, attrs.AsRaw())
}

func TestGetWarningRejects(t *testing.T) {
	for name, fill := range map[string]func(pcommon.Map){
		"no kind":           func(m pcommon.Map) { m.PutInt(Requested, 1) },
		"empty kind":        func(m pcommon.Map) { m.PutStr(WarningKind, "") },
		"kind not a string": func(m pcommon.Map) { m.PutInt(WarningKind, 3) },
		"also a failure": func(m pcommon.Map) {
			m.PutStr(WarningKind, oom.WarningAllocatorRetry)
			m.PutStr(ErrorCode, "E0007")
		},
	} {
		t.Run(name, func(t *testing.T) {
			attrs := pcommon.NewMap()
			fill(attrs)
			_, ok := GetWarning(attrs)
			assert.False(t, ok)
		})
	}
	attrs := pcommon.NewMap()
	attrs.PutStr(WarningKind, oom.WarningAllocatorRetry)
	attrs.PutStr(Requested, "not an int")
	w, ok := GetWarning(attrs)
	require.True(t, ok)
	assert.False(t, w.Requested.Known, "a value of the wrong type is ignored")
}

func TestMarks(t *testing.T) {
	attrs := pcommon.NewMap()
	attrs.PutStr("log.file.name", "train.log")
	tagged, warned, _ := MarksAll(attrs)
	assert.False(t, tagged)
	assert.False(t, warned)
	attrs.PutStr(WarningKind, "allocator_retry")
	tagged, warned, _ = MarksAll(attrs)
	assert.False(t, tagged)
	assert.True(t, warned)
	attrs.PutStr(ErrorCode, "E0007")
	tagged, warned, _ = MarksAll(attrs)
	assert.True(t, tagged)
	assert.True(t, warned)
	assert.Equal(t, Tagged(attrs), tagged)
	assert.Equal(t, Warned(attrs), warned)
}
