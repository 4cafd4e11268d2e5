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

func TestGenericRoundTrip(t *testing.T) {
	r, ok := oom.Recognize(`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from the scratch arena`)
	require.True(t, ok)
	require.Equal(t, oom.FamilyGeneric, r.Family)
	attrs := pcommon.NewMap()
	Put(r, attrs)
	v, ok := attrs.Get(Generic)
	require.True(t, ok)
	assert.Equal(t, pcommon.ValueTypeBool, v.Type())
	assert.True(t, IsGeneric(attrs))
	got, ok := Get(attrs)
	require.True(t, ok)
	r.AdviceSource = nil // no attribute: the advice reads back as rendered
	assert.Equal(t, r, got, "the mark reads back as the generic family")
}

func TestGenericOnlyOnLastResort(t *testing.T) {
	attrs := pcommon.NewMap()
	Put(fullReport(), attrs)
	_, ok := attrs.Get(Generic)
	assert.False(t, ok, "a known family's record carries no generic mark")
	assert.False(t, IsGeneric(attrs))

	attrs.PutStr(Generic, "true") // a string is not the mark
	got, _ := Get(attrs)
	assert.Empty(t, got.Family)
}

func TestHolderRoundTrip(t *testing.T) {
	r := fullReport()
	r.MemoryHolder, r.MemoryHolderSize = "jit_broadcast_in_dim", oom.KnownSize(2147483648)
	attrs := pcommon.NewMap()
	Put(r, attrs)
	assert.Equal(t, "jit_broadcast_in_dim", attrs.AsRaw()[HolderProgram])
	assert.Equal(t, int64(2147483648), attrs.AsRaw()[HolderSize])
	got, ok := Get(attrs)
	require.True(t, ok)
	r.Family = ""
	assert.Equal(t, r, got)
}
