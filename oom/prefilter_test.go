// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"slices"
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

// TestOnePassScanAgrees: the one-pass scan finds exactly the hits of the
// keys (of the four-byte key, the bytes it compares), from any starting
// point, in texts of every length around its block sizes.
func TestOnePassScanAgrees(t *testing.T) {
	keys := []string{"R", "Z", "lloc"}
	v := logtext.NewKeyWords(keys)
	want := func(s string, from int) int {
		for i := from; i < len(s)-3; i++ {
			if s[i] == 'R' || s[i] == 'Z' || wordHit(s[i:i+4]) {
				return i
			}
		}
		return -1
	}
	texts := ordinaryLines(t)
	for n := logtext.MinOnePassLen; n < 140; n++ {
		// every key byte at every position, and bytes that differ from one
		// in the high bit or the bit the single keys share
		for _, pos := range []int{0, 1, n / 2, n - 3, n - 2, n - 1} {
			for _, k := range []string{"R", "lloc", "llo", "Z", "l", "lloZ", "lxxc", "llxc", "\xd2", "\xec\x00\x00\xe3", "RRRRRRRRRRRR", "lllcccRZlxlc"} {
				b := []byte(strings.Repeat("x", n))
				copy(b[pos:], k)
				texts = append(texts, string(b))
			}
		}
	}
	for _, s := range texts {
		if len(s) < logtext.MinOnePassLen {
			continue
		}
		for from := 0; from <= len(s); from++ {
			var got []int
			var hits [logtext.MaxKeyHits]int32
			for f := from; ; {
				n, next := logtext.KeyHits(s, f, &v, &hits)
				for _, i := range hits[:n] {
					got = append(got, int(i))
				}
				if n < logtext.MaxKeyHits {
					break
				}
				f = next
			}
			var w []int
			for i := want(s, from); i >= 0; i = want(s, i+1) {
				w = append(w, i)
			}
			if !slices.Equal(got, w) {
				t.Fatalf("keyHits(%q, %d) = %v, want %v", s, from, got, w)
			}
		}

	}
}

// wordHit is what the one-pass scan compares of the four-byte key "lloc"
// at the start of w: its first and last bytes.
func wordHit(w string) bool { return w[0] == 'l' && w[3] == 'c' }
