// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// FuzzRecognizeWarning: RecognizeWarning is deterministic, names a known kind
// with its explanation, never reports an unknown size with bytes, and its
// pressure is a finite, non-negative ratio.
func FuzzRecognizeWarning(f *testing.F) {
	for _, fx := range warningFixtures {
		f.Add(fx.text)
	}
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		w1, ok1 := RecognizeWarning(text)
		w2, ok2 := RecognizeWarning(text)
		if ok1 != ok2 || !reflect.DeepEqual(w1, w2) {
			t.Fatalf("RecognizeWarning not deterministic on %q:\n%+v %v\n%+v %v", text, w1, ok1, w2, ok2)
		}
		if !ok1 {
			if w1 != (grammar.Warning{}) {
				t.Fatalf("not recognised but not empty: %+v", w1)
			}
			return
		}
		if !slices.Contains(grammar.WarningKinds(), w1.Kind) || w1.Explanation != grammar.Explanation(w1.Kind) || w1.Phase != grammar.WarningPhase(w1.Kind) {
			t.Errorf("kind %q, explanation %q, phase %q", w1.Kind, w1.Explanation, w1.Phase)
		}
		for _, s := range []grammar.Size{w1.Requested, w1.Used, w1.Free, w1.Capacity} {
			if !s.Known && s.Bytes != 0 {
				t.Errorf("unknown size with bytes %d in %+v", s.Bytes, w1)
			}
		}
		if p, ok := w1.Pressure(); ok && (p < 0 || math.IsInf(p, 0) || math.IsNaN(p)) {
			t.Errorf("pressure %v of %+v", p, w1)
		}
	})
}
