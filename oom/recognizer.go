// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strconv"

// Recognizer holds everything built from the family table (families.go): the
// compiled families in matching order, the prefilter's scan tables and the
// words a hard wrap may split. It is built once and never changes, so one
// Recognizer serves any number of goroutines.
type Recognizer struct {
	compiled
	raisedAs  []*family       // per attempt, the family its raised form is read as (nil: none)
	prefilter prefilter
	wrapWords wrapVocabulary
}

// defaultRecognizer is built from the family table when the package is
// initialised: a malformed entry panics there, so every test run catches it.
var defaultRecognizer = newRecognizer(failureGroups, warningGroups)

// Default returns the Recognizer of every family of this package. The
// package-level MayContain, Recognize and RecognizeWarning use it.
func Default() *Recognizer { return defaultRecognizer }

// MayContain reports whether text could hold an XLA OOM message (see
// Recognizer.MayContain).
func MayContain(text string) bool { return defaultRecognizer.MayContain(text) }

// Recognize finds the XLA OOM failure in text (see Recognizer.Recognize).
func Recognize(text string) (Report, bool) { return defaultRecognizer.Recognize(text) }

// MayContain reports whether text could hold an XLA OOM message or a
// memory-pressure warning. It is the cheap first pass run on every record:
// false means certainly not an OOM (the prefilter, prefilter.go).
func (z *Recognizer) MayContain(text string) bool { return z.prefilter.mayContain(text) }

// RecognizeWarning finds the first memory-pressure warning in text (see
// Recognizer.RecognizeWarning).
func RecognizeWarning(text string) (Warning, bool) { return defaultRecognizer.RecognizeWarning(text) }

// newRecognizer compiles the entries of failures and warnings (copies: the
// table itself is never written) and builds the tables read from them. It
// panics on a malformed table: a duplicate id, an entry without a kind, code
// or phase, an expression that does not compile or whose anchor is not its
// literal text.
func newRecognizer(failures [][]family, warnings [][]warningFamily) *Recognizer {
	z := &Recognizer{}
	seen := map[string]bool{familyCodeOnly: true}
	checkID := func(id string) {
		if seen[id] {
			panic("oom: duplicate family id " + strconv.Quote(id))
		}
		seen[id] = true
	}
	for _, group := range failures {
		for _, f := range group {
			checkID(f.id)
			if f.kind == 0 || f.code == "" || f.phase == "" {
				panic("oom: family " + f.id + " lacks a kind, code or phase")
			}
			f.pattern = compilePattern(f.id, f.anchor, f.expr, f.span)
			z.families = append(z.families, f)
		}
	}
	for _, group := range warnings {
		for _, w := range group {
			checkID(w.id)
			if w.kind == "" || w.phase == "" {
				panic("oom: warning family " + w.id + " lacks a kind or phase")
			}
			if w.attempt != (w.kind == WarningAllocationAttempt) {
				panic("oom: warning family " + w.id + ": an attempt entry and only those have kind " + WarningAllocationAttempt)
			}
			w.pattern = compilePattern(w.id, w.anchor, w.expr, w.span)
			if w.attempt {
				z.attempts = append(z.attempts, len(z.warnings))
			}
			z.warnings = append(z.warnings, w)
		}
	}
	z.prefilter = buildPrefilter(z.prefilterCues())
	z.wrapWords = buildWrapVocabulary(z.exprs(), detailAnchors())
	z.resolveRaised() // speakers.go
	return z
}

// cues lists every entry's prefilter cues, failures first, then the
// last-resort layer's.
func (z *Recognizer) cues() []cue {
	var out []cue
	for i := range z.families {
		out = append(out, z.families[i].cues...)
	}
	for i := range z.warnings {
		out = append(out, z.warnings[i].cues...)
	}
	return append(out, genericCues...)
}

// exprs lists every entry's expression, failures first.
func (z *Recognizer) exprs() []string {
	out := make([]string, 0, len(z.families)+len(z.warnings))
	for i := range z.families {
		out = append(out, z.families[i].expr)
	}
	for i := range z.warnings {
		out = append(out, z.warnings[i].expr)
	}
	return out
}

// detailAnchors lists the details' anchors: words a hard wrap may split too.
func detailAnchors() []string {
	out := make([]string, 0, len(details))
	for _, d := range details {
		out = append(out, d.anchor)
	}
	return out
}
