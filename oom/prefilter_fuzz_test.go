// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"testing"
)

// FuzzPrefilterDifferential: for any text, what Recognize or
// RecognizeWarning accepts passes MayContain, and MayContain answers as
// referenceMayContain does. Seeded with every fixture, look-alike, message
// file and the generated variants of every family's message.
func FuzzPrefilterDifferential(f *testing.F) {
	for _, s := range differentialTexts(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<12 {
			return // the reference is quadratic around verbs; long texts add nothing
		}
		checkPrefilterAgrees(t, text)
	})
}
