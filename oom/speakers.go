// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/verdict"
)

// The speaker decides before the words (docs/recognition.md, "Who said
// it"): the hooks of speaker/statements.go's record into recognition.

// eachAttemptOrRaised is EachAttempt that also adds to cands the attempts
// in a status XLA's stack raised (the program raised them: the failure), as
// candidates of their raised family: one pass over the attempt patterns.
func (z *Recognizer) eachAttemptOrRaised(flat string, st *speaker.Statements, cands []verdict.Candidate, fn func(at int, r *grammar.Report, requested string)) []verdict.Candidate {
	for k, i := range z.Attempts {
		w := &z.Warnings[i]
		f := z.raisedAs[k] // nil when the last-resort layer reads its raised form
		w.Each(flat, func(m grammar.Match) {
			at := m.Start()
			v := verdict.AttemptAt(st, at) // Dropped, Failure (raised) or Attempt
			if v == verdict.Dropped || v == verdict.Failure && (f == nil || len(cands) >= grammar.MaxCandidates) {
				return
			}
			r := grammar.Report{Backend: w.Backend}
			if v == verdict.Failure {
				r = grammar.Report{Family: f.ID, Code: f.Code, Phase: f.Phase, Backend: f.Backend}
			}
			grammar.ReadStandardGroups(&r, m)
			if w.Read != nil && !w.Read(&r, m) {
				return
			}
			if v == verdict.Failure {
				cands = append(cands, verdict.Candidate{F: f, Verdict: v, At: at, R: r, RequestedToken: grammar.RequestedToken(m)})
				return
			}
			fn(at, &r, grammar.RequestedToken(m))
		})
	}
	return cands
}

// raisedFamily is the failure family an attempt's raised form is read as
// (WarningFamily.Raised), nil for none; it panics on an id that names no
// failure family, as newRecognizer does on any malformed entry.
func (z *Recognizer) raisedFamily(w *grammar.WarningFamily) *grammar.Family {
	if w.Raised == "" {
		return nil
	}
	for i := range z.Families {
		if z.Families[i].ID == w.Raised {
			return &z.Families[i]
		}
	}
	panic("oom: warning family " + w.ID + " is raised as " + strconv.Quote(w.Raised) + ", which is no failure family")
}
