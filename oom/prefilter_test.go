// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

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
		{"device memory of 1.97 GiB", false},
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

// TestCueKeys: every cue holds one of the scan keys, and the first of them
// in scanKeys' order is its key; the keys fit the one-pass scan.
func TestCueKeys(t *testing.T) {
	for _, c := range []struct {
		text string
		at   int
	}{
		{"RESOURCE_EXHAUSTED", 0}, {"_HBM", 2}, {"ERROR_OUT_OF_MEMORY", 1}, {"OOM when allocating", 10},
		{"Ran out of GPU memory when allocating", 0}, {"out of memory", -1}, {"ailed to allocate", 10},
	} {
		if got := logtext.CueKey(c.text); got != c.at {
			t.Errorf("cueKey(%q) = %d, want %d", c.text, got, c.at)
		}
	}
	if got := len(defaultRecognizer.prefilter.Scans); got != len(logtext.ScanKeys) {
		t.Errorf("%d scans for %d keys", got, len(logtext.ScanKeys))
	}
	_ = logtext.NewKeyWords(logtext.ScanKeys) // panics if they do not fit
}

// TestMayContainEveryPosition: a cue of each key passes MayContain at every
// position of texts of every length around the scan's block sizes (its
// first loop, the two overlapping steps after it, the last three bytes),
// and the text around it alone does not.
func TestMayContainEveryPosition(t *testing.T) {
	cues := []string{
		"RESOURCE_EXHAUSTED",         // 'R'
		"BufferAssignment OOM",       // 'B'
		"request for 8B",             // the 'B' of a size, the text's last byte
		"Failed to allocate memory.", // the word "lloc"
	}
	for n := logtext.MinOnePassLen; n < 140; n++ {
		if filler := strings.Repeat("x", n); MayContain(filler) {
			t.Fatalf("MayContain(%q) = true", filler)
		}
		for _, c := range cues {
			for pos := 0; pos+len(c) <= n; pos++ {
				b := []byte(strings.Repeat("x", n))
				b[max(pos-1, 0)] = ' '
				copy(b[pos:], c)
				if s := string(b); !MayContain(s) {
					t.Fatalf("MayContain(%q) = false", s)
				}
			}
		}
	}
}
