// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "testing"

// TestCueSyntax: in a cue, a space stands for any whitespace run and '#' for
// a digit; near needs its phrase close after the cue; sizeAfter needs a size
// with a byte unit right after the verb.
func TestCueSyntax(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Ran out of memory", true},
		{"Ran \n out  of\tmemory in memory space hbm", true},
		{"Ranout of memory", false},
		{"Requires 3.84T, has 90.96G available", true},
		{"Requires\n  3.84T", true},
		{"Requires more time", false},
		{"INTERNAL: 'memref.alloca' op current allocation offset upper bound", true},
		{"INTERNAL: Failed to open libtpu.so", false},
		{"ran out of memory trying to allocate 1.97GiB (rounded to 2110783744)", true},
		{"ran out of memory trying to allocate 1.97 GiB", false},
		{"Failed to allocate request for 32.00MiB (33554432B)", true},
		{"(0x0x1_HBM0)", true},
		{"NVIDIA H100 80GB HBM3", false},
		{"CUDA_ERROR_OUT_OF_MEMORY", true},
		{"ERROR: nothing", false},
		{"...RuntimeBufferAllocationFailure", true},
		{"Running: 12 reqs", false},
	} {
		if got := MayContain(c.text); got != c.want {
			t.Errorf("MayContain(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestCueKeys: every cue today is keyed on 'R' or 'B', so MayContain makes
// two passes; a cue without either would add a third (and show in
// BenchmarkMayContainRatio).
func TestCueKeys(t *testing.T) {
	if others := defaultRecognizer.prefilter.others; len(others) != 0 {
		keys := ""
		for _, s := range others {
			keys += string(s.key)
		}
		t.Errorf("cues added scans for %q: check BenchmarkMayContainRatio stays within 1.5x and update this test", keys)
	}
	if cueKey("xyz Abc") != 4 || cueKey("_HBM") != 2 || cueKey("ERROR_OUT_OF_MEMORY") != 1 {
		t.Error("cueKey does not prefer R, then B, then the first capital")
	}
}
