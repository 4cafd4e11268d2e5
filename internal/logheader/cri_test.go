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

func TestTimestampPrefix(t *testing.T) {
	tests := []struct {
		src, line string
		n         int
	}{
		{"kubectl 1.28 logs --timestamps (kubelet RFC3339NanoFixed)", "2024-04-29T14:55:41.678628123Z Traceback (most recent call last):", 31},
		{"kubectl 1.28 logs --timestamps, a continuation line", "2024-04-29T14:55:41.678629001Z   File \"train.py\", line 12, in <module>", 31},
		{"docker 24 logs -t, an offset", "2024-04-29T16:55:41.678628123+02:00 hello", 36},
		{"an empty line under kubectl logs --timestamps", "2024-04-29T14:55:41.678628123Z ", 31},
		{"CRI file line: the CRI prefix, not this one", "2024-04-29T14:55:41.678628123Z stderr F hello", 31},
		{"Python logging header", "2024-04-29 14:55:41,678 INFO hello", 0},
		{"trimmed fraction (RFC3339Nano): not kubectl's", "2024-04-29T14:55:41.678628Z hello", 0},
		{"no space after", "2024-04-29T14:55:41.678628123Zhello", 0},
		{"an empty line, its space trimmed", "2024-04-29T14:55:41.678628123Z", 30},
		{"too short", "2024-04-29T14:55:41.67862812", 0},
		{"", "", 0},
	}
	for _, tt := range tests {
		if n := TimestampPrefix(tt.line); n != tt.n {
			t.Errorf("%s: %q: %d, want %d", tt.src, tt.line, n, tt.n)
		}
	}
}
