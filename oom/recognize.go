// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/diagnosis"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/breakdown"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/verdict"
)

// Recognize finds the XLA OOM failure in text, one line or a whole
// multi-line record, if any, and reads it. Of several messages the first
// returned status is the failure (the verdict's table says which statement
// is what); compatible details of the others fill what it leaves empty.
// It accepts only what MayContain passes, as the processor does.
func (z *Recognizer) Recognize(text string) (grammar.Report, bool) {
	if !z.MayContain(text) {
		return grammar.Report{}, false
	}
	return z.recognizeUnfiltered(text)
}

// recognizeUnfiltered is Recognize without the prefilter (the tests check
// that it reads nothing MayContain rejects).
func (z *Recognizer) recognizeUnfiltered(text string) (grammar.Report, bool) {
	f := z.Find(text, false)
	return f.Report, f.Found == FoundFailure
}

// recognizeFlat is Recognize on a text flattened to flat, with its INFO
// spans, its log entries and its statements' speakers.
func (z *Recognizer) recognizeFlat(flat string, info *logtext.InfoLines, entries *logtext.Entries, st *speaker.Statements) (grammar.Report, bool) {
	var buf [8]verdict.Candidate
	cands := buf[:0]
	for i := range z.Families {
		f := &z.Families[i]
		f.Each(flat, func(m grammar.Match) {
			v := verdict.Of(verdict.Statement{
				Kind:    verdict.KindOf(f.Kind),
				Foreign: st.Foreign(m.Start()),
				Guarded: details.Guarded(flat, m.Start()),
				AtInfo:  info.Contains(m.Start()),
			})
			if v == verdict.Dropped || len(cands) >= grammar.MaxCandidates {
				return
			}
			r := grammar.Report{Family: f.ID, Code: f.Code, Phase: f.Phase, Backend: f.Backend}
			grammar.ReadStandardGroups(&r, m)
			if f.Read == nil || f.Read(&r, m) {
				cands = append(cands, verdict.Candidate{F: f, Verdict: v, At: m.Start(), R: r, RequestedToken: grammar.RequestedToken(m)})
			}
		})
	}

	// Speaker hooks (speakers.go): an attempt inside a status XLA's stack
	// raised is a failure; a code in a foreign statement is not XLA's.
	var attempts verdict.AttemptSeries
	cands = z.eachAttemptOrRaised(flat, st, cands, attempts.Add)
	var codeBuf [4]details.CodeAt
	codes := verdict.WithoutForeign(details.FindCodes(flat, codeBuf[:0]), st)

	var r grammar.Report
	var traits grammar.AdviceTraits
	var failure *grammar.Family // the primary candidate's family, nil for a bare code
	ownRequest := 0             // 1 when an attempt is the failing request itself
	exceptionAt := -1
	if p := verdict.Primary(cands); p >= 0 {
		exceptionAt = cands[p].At
		r = cands[p].R
		for i := range cands {
			if i != p {
				verdict.MergeFrom(&r, &cands[i].R)
				verdict.PreferExact(&r, cands[p].RequestedToken, &cands[i])
			}
		}
		if c, ok := details.CodeFor(codes, cands[p].At); ok {
			r.Code = c
		}
		if verdict.ExactFromAttempt(&r, cands[p].RequestedToken, &attempts) {
			ownRequest = 1
		}
		traits = cands[p].F.Advice
		failure = cands[p].F
	} else if c, ok := details.StandaloneCode(codes); ok {
		// A catalog OOM code with no readable message (e.g. a truncated
		// "RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:").
		r = grammar.Report{Family: grammar.FamilyCodeOnly, Code: c}
	} else {
		if r, ok = z.lastResort(flat, entries, st); !ok {
			return grammar.Report{}, false
		}
		traits = grammar.AdviceTraits{Own: diagnosis.GenericAdvice, OwnAction: diagnosis.GenericAction}
	}

	// The refusal of the failing request itself is the failure, not an
	// attempt on the way (explain counts alike).
	r.Attempts = attempts.Count - ownRequest
	r.RefusedBefore, r.OwnRefused = r.Attempts, ownRequest == 1
	r.ExceptionType = st.ExceptionType(exceptionAt)

	for _, d := range details.Details {
		grammar.EachAnchor(flat, d.Anchor, func(i int) {
			d.Read(&r, flat[max(0, i-details.DetailSpan):i], flat[i+len(d.Anchor):min(len(flat), i+len(d.Anchor)+details.DetailSpan)])
		})
	}
	var allocator details.Allocator
	allocator.Read(flat)
	allocator.Apply(&r)
	if !r.Used.Known {
		r.Used = allocator.InUse // a statement's own figure: what its allocator had in use
	}
	// Breakdowns are read from the flattened text, so a per-line prefixed
	// and a one-line breakdown read alike; no headline reaches into one.
	if breakdown.HasBreakdown(flat) {
		breakdown.ReadBreakdown(&r.Breakdown, flat)
		if !r.Used.Known {
			r.Used = r.Breakdown.Allocated // XRT "Currently allocated": what is in use on the device
		}
	}
	diagnosis.Finish(&r, flat, traits)
	if failure != nil && failure.Category != "" && r.Code == failure.Code {
		r.Category = failure.Category
	}
	return r, true
}

// lastResort is the first statement of the last-resort layer that the
// verdict's table takes for a failure.
func (z *Recognizer) lastResort(flat string, entries *logtext.Entries, st *speaker.Statements) (r grammar.Report, found bool) {
	generic.EachCandidate(flat, entries, func(c *generic.Candidate) bool {
		beside := z.HasAttempt(flat[c.From:c.To], func(at int) bool { return verdict.AttemptAt(st, c.From+at) == verdict.Attempt })
		if verdict.Of(verdict.Statement{Kind: verdict.LastResort, Foreign: st.Foreign(c.At), BesideAttempt: beside}) == verdict.Dropped {
			return false
		}
		r, found = c.R, true
		return true
	})
	return r, found
}
