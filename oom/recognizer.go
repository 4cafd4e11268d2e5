// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Recognizer holds what is built from the family table; it never changes, so goroutines may share one.
type Recognizer struct {
	grammar.Compiled
	raisedAs  []*grammar.Family // per attempt, the family its raised form is read as (nil: none)
	prefilter logtext.Prefilter
	wrapWords logtext.WrapVocabulary
}

// defaultRecognizer is built at init: a malformed entry panics there, so every test run catches it.
var defaultRecognizer = newRecognizer(families.FailureGroups, families.WarningGroups)

// Default returns the Recognizer of every family of this package.
func Default() *Recognizer { return defaultRecognizer }

// MayContain is Recognizer.MayContain of the Default Recognizer.
func MayContain(text string) bool { return defaultRecognizer.MayContain(text) }

// Recognize is Recognizer.Recognize of the Default Recognizer.
func Recognize(text string) (grammar.Report, bool) { return defaultRecognizer.Recognize(text) }

// MayContain reports whether text could hold an XLA OOM message, a warning or a cue WithCues added: the cheap first pass.
func (z *Recognizer) MayContain(text string) bool { return z.prefilter.MayContain(text) }

// RecognizeWarning is Recognizer.RecognizeWarning of the Default Recognizer.
func RecognizeWarning(text string) (grammar.Warning, bool) {
	return defaultRecognizer.RecognizeWarning(text)
}

// newRecognizer compiles copies of the entries and builds the tables read from them; it panics on a
// malformed table (duplicate id, missing kind, code or phase, a bad expression or anchor).
func newRecognizer(failures [][]grammar.Family, warnings [][]grammar.WarningFamily) *Recognizer {
	z := &Recognizer{}
	seen := map[string]bool{grammar.FamilyCodeOnly: true}
	checkID := func(id string) {
		if seen[id] {
			panic("oom: duplicate family id " + strconv.Quote(id))
		}
		seen[id] = true
	}
	var exprs, anchors []string // the words a hard wrap may split
	for _, group := range failures {
		for _, f := range group {
			checkID(f.ID)
			if f.Kind == 0 || f.Code == "" || f.Phase == "" {
				panic("oom: family " + f.ID + " lacks a kind, code or phase")
			}
			f.Pattern = grammar.CompilePattern(f.ID, f.Anchor, f.Expr, f.Span)
			z.Families = append(z.Families, f)
			exprs = append(exprs, f.Expr)
		}
	}
	for _, group := range warnings {
		for _, w := range group {
			checkID(w.ID)
			if w.Kind == "" || w.Phase == "" {
				panic("oom: warning family " + w.ID + " lacks a kind or phase")
			}
			if w.Attempt != (w.Kind == grammar.WarningAllocationAttempt) {
				panic("oom: warning family " + w.ID + ": an attempt entry and only those have kind " + grammar.WarningAllocationAttempt)
			}
			w.Pattern = grammar.CompilePattern(w.ID, w.Anchor, w.Expr, w.Span)
			if w.Attempt {
				z.Attempts = append(z.Attempts, len(z.Warnings))
				z.raisedAs = append(z.raisedAs, z.raisedFamily(&w))
			}
			z.Warnings = append(z.Warnings, w)
			exprs = append(exprs, w.Expr)
		}
	}
	for _, d := range details.Details {
		anchors = append(anchors, d.Anchor)
	}
	anchors = append(anchors, details.AllocatorAnchors...)
	z.prefilter = logtext.BuildPrefilter(z.prefilterCues())
	z.wrapWords = logtext.BuildWrapVocabulary(exprs, anchors)
	return z
}

// WithCues returns a copy whose prefilter also passes texts holding one of extra ('#' a digit, ' ' any
// whitespace), so another reader of the same records shares the one pass.
func (z *Recognizer) WithCues(extra ...string) *Recognizer {
	with := *z
	all := z.prefilterCues()
	for _, text := range extra {
		all = append(all, logtext.Cue{Text: text})
	}
	with.prefilter = logtext.BuildPrefilter(all)
	return &with
}

// prefilterCues is every cue MayContain lets through. The catalog names without an 'R' or a 'B'
// (CompileTime*) are not cues: XLA prints them only after "RESOURCE_EXHAUSTED: Ennnn: ".
func (z *Recognizer) prefilterCues() []logtext.Cue {
	all := append([]logtext.Cue(nil), logtext.StatusCues...)
	for _, e := range grammar.Catalog {
		if strings.ContainsAny(e.Name, "RB") {
			all = append(all, logtext.Cue{Text: e.Name})
		}
	}
	for i := range z.Families {
		all = append(all, z.Families[i].Cues...)
	}
	for i := range z.Warnings {
		all = append(all, z.Warnings[i].Cues...)
	}
	return append(all, generic.GenericCues...)
}
