// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOnePassScanAgrees: the one-pass scan finds exactly the hits of the
// keys (of the four-byte key, the bytes it compares), from any starting
// point, in texts of every length around its block sizes.
func TestOnePassScanAgrees(t *testing.T) {
	keys := []string{"R", "Z", "lloc"}
	v := NewKeyWords(keys)
	want := func(s string, from int) int {
		for i := from; i < len(s)-3; i++ {
			if s[i] == 'R' || s[i] == 'Z' || wordHit(s[i:i+4]) {
				return i
			}
		}
		return -1
	}
	// Lines of the ordinary corpus, and generated texts.
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ordinary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	texts := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for n := MinOnePassLen; n < 140; n++ {
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
		if len(s) < MinOnePassLen {
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

// wordHit is what the one-pass scan compares of the four-byte key "lloc"
// at the start of w: its first and last bytes.
func wordHit(w string) bool { return w[0] == 'l' && w[3] == 'c' }
