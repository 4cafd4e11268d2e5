// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"slices"
	"strings"
	"testing"
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
		if got := cueKey(c.text); got != c.at {
			t.Errorf("cueKey(%q) = %d, want %d", c.text, got, c.at)
		}
	}
	if got := len(defaultRecognizer.prefilter.scans); got != len(scanKeys) {
		t.Errorf("%d scans for %d keys", got, len(scanKeys))
	}
	_ = newKeyWords(scanKeys) // panics if they do not fit
}

// TestOnePassScanAgrees: the one-pass scan finds exactly the hits of the
// keys (of the four-byte key, the bytes it compares), from any starting
// point, in texts of every length around its block sizes.
func TestOnePassScanAgrees(t *testing.T) {
	keys := []string{"R", "Z", "lloc"}
	v := newKeyWords(keys)
	want := func(s string, from int) int {
		for i := from; i < len(s)-3; i++ {
			if s[i] == 'R' || s[i] == 'Z' || wordHit(s[i:i+4]) {
				return i
			}
		}
		return -1
	}
	texts := ordinaryLines(t)
	for n := minOnePassLen; n < 140; n++ {
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
		if len(s) < minOnePassLen {
			continue
		}
		// firstStep: -1 only for a text with no hit at all, including a
		// single key in the last three bytes.
		if first := v.firstStep(s); first < 0 && (want(s, 0) >= 0 || strings.ContainsAny(s[len(s)-3:], "RZ")) {
			t.Fatalf("firstStep(%q) = -1, and it holds a hit", s)
		} else if first >= 0 {
			if got, w := stepsHits(&v, s, first, first), allHits(want, s, 0); !slices.Equal(got, w) {
				t.Fatalf("the hits of %q from firstStep's %d = %v, want %v", s, first, got, w)
			}
		}
		// nextStep and stepHits, from any point on.
		for from := 0; from <= len(s); from++ {
			if v.nextStep(s, from) < 0 && strings.ContainsAny(s[max(from, len(s)-3):], "RZ") {
				t.Fatalf("nextStep(%q, %d) = -1, and a single key lies in the last three bytes", s, from)
			}
			if got, w := stepsHits(&v, s, v.nextStep(s, from), from), allHits(want, s, from); !slices.Equal(got, w) {
				t.Fatalf("the hits of %q from %d = %v, want %v", s, from, got, w)
			}
		}
	}
}

// stepsHits collects the hits the way confirmFrom visits them: the step at
// i, then nextStep's, each without the hits before done.
func stepsHits(v *keyWords, s string, i, done int) []int {
	var got []int
	for end := len(s) - 3; i >= 0 && i < end; i = v.nextStep(s, done) {
		h0, h1 := v.stepHits(s, i)
		if i < done {
			keep0, keep1 := keepFrom(done - i)
			h0, h1 = h0&keep0, h1&keep1
		}
		for b := 0; b < 8; b++ {
			if h0>>(8*b+7)&1 != 0 {
				got = append(got, i+b)
			}
		}
		for b := 0; b < 8; b++ {
			if h1>>(8*b+7)&1 != 0 {
				got = append(got, i+8+b)
			}
		}
		done = i + blockLen
	}
	return got
}

// allHits lists the indexes want finds from from on.
func allHits(want func(string, int) int, s string, from int) []int {
	var w []int
	for i := want(s, from); i >= 0; i = want(s, i+1) {
		w = append(w, i)
	}
	return w
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
	for n := minOnePassLen; n < 140; n++ {
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

// wordHit is what the one-pass scan compares of the four-byte key "lloc"
// at the start of w: its first and last bytes.
func wordHit(w string) bool { return w[0] == 'l' && w[3] == 'c' }
