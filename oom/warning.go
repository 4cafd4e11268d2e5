// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/verdict"
)

// RecognizeWarning finds the first memory-pressure warning in text. Call it
// on texts that passed MayContain and that Recognize did not take as an OOM.
// When a record holds several warnings the earliest is reported.
func (z *Recognizer) RecognizeWarning(text string) (grammar.Warning, bool) {
	if !z.MayContain(text) {
		return grammar.Warning{}, false // as Recognize: only what the prefilter passes
	}
	var st speaker.Statements
	marks := st.Marks()
	flat := z.wrapWords.FlattenLevels(text, nil, nil, &marks)
	return z.recognizeWarningFlat(flat, &st)
}

// recognizeWarningFlat is RecognizeWarning on flattened text, whose
// statements' speakers are st.
func (z *Recognizer) recognizeWarningFlat(flat string, st *speaker.Statements) (grammar.Warning, bool) {
	best, at := grammar.Warning{}, -1
	for i := range z.Warnings {
		f := &z.Warnings[i]
		f.Each(flat, func(m grammar.Match) {
			if at >= 0 && m.Start() >= at || verdict.WarningAt(st, m.Start()) == verdict.Dropped {
				return
			}
			r := grammar.Report{Backend: f.Backend}
			grammar.ReadStandardGroups(&r, m)
			if f.Read != nil && !f.Read(&r, m) {
				return
			}
			best, at = grammar.Warning{
				Kind: f.Kind, Family: f.ID, Phase: f.Phase, Backend: r.Backend, Device: r.Device,
				Requested: r.Requested, Used: r.Used, Free: r.Free, Capacity: r.Capacity,
			}, m.Start()
		})
	}
	if at < 0 {
		return grammar.Warning{}, false
	}
	if best.Backend == "" {
		best.Backend = details.EvidenceBackend(flat)
	}
	if best.Kind == grammar.WarningAllocationAttempt {
		var s verdict.AttemptSeries
		z.EachAttempt(flat, func(at int) bool { return verdict.AttemptAt(st, at) == verdict.Attempt }, s.Add)
		best.Attempts = s.Count
		if s.Count > 1 {
			best.Requested, best.Last = s.First, s.Last
		}
	}
	best.Explanation = grammar.Explanations[best.Kind]
	return best, true
}
