// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// TestTensorFlowDtypeSizes: the requested size is the shape's element count
// times the dtype's size; an unknown dtype or an overflow leaves it unset.
func TestTensorFlowDtypeSizes(t *testing.T) {
	for _, c := range []struct {
		shape, dtype string
		want         grammar.Size
	}{
		{"16,64,64,64", "float", b(16777216)},
		{"8,2048,2048", "half", b(67108864)},
		{"8,2048,2048", "bfloat16", b(67108864)},
		{"1000", "double", b(8000)},
		{"1000", "int8", b(1000)},
		{"1000", "uint8", b(1000)},
		{"1000", "bool", b(1000)},
		{"1000", "int16", b(2000)},
		{"1000", "int32", b(4000)},
		{"1000", "int64", b(8000)},
		{"1000", "complex64", b(8000)},
		{"1000", "complex128", b(16000)},
		{"", "float", b(4)}, // a scalar
		{"1000", "string", grammar.Size{}},
		{"1000", "resource", grammar.Size{}},
		{"4294967296,4294967296,4", "float", grammar.Size{}}, // overflows int64
		{"16,?,64", "float", grammar.Size{}},
	} {
		if got := families.TensorBytes(c.shape, c.dtype); got != c.want {
			t.Errorf("tensorBytes(%q, %q) = %+v, want %+v", c.shape, c.dtype, got, c.want)
		}
	}
}
