// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import "testing"

func TestCRIPrefix(t *testing.T) {
	tests := []struct {
		line    string
		n       int
		partial bool
	}{
		{"2025-09-12T07:01:12.118224Z stderr F hello", len("2025-09-12T07:01:12.118224Z stderr F "), false},
		{"2025-09-12T07:01:12.118224123+02:00 stdout P hel", len("2025-09-12T07:01:12.118224123+02:00 stdout P "), true},
		{"2025-09-12T07:01:12.118224Z stdout F", len("2025-09-12T07:01:12.118224Z stdout F"), false},
		{"2025-09-12T07:01:12.118224Z stdout Fx", 0, false},
		{"2025-09-12 07:01:12.118224: E external/xla/service.cc:1] stdout F", 0, false},
		{"2025-09-12T07:01:12Z journal F text", 0, false},
		{"E0912 07:01:12.118224 stdout F", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		n, partial := CRIPrefix(tt.line)
		if n != tt.n || partial != tt.partial {
			t.Errorf("%q: %d %v, want %d %v", tt.line, n, partial, tt.n, tt.partial)
		}
	}
}
