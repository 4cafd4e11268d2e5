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

// Recognize finds the XLA OOM failure in text, if any, and reads it.
//
// text may be one line or a whole multi-line record (a traceback, a log line
// followed by a BufferAssignment dump or a TPU breakdown). When a record holds
// several messages (an allocator warning, the "Execution of replica N failed"
// line, the exception), the first returned status is the failure; the BFC
// allocator's report of the request it could not serve is the failure only
// when no status is present. Allocation attempts (the driver's refusals that
// allocators retry, families/families_attempts.go) are never the failure.
// Compatible details of the other messages (device, backend, sizes of the
// same code) fill what the failure leaves empty.
//
// It accepts only what MayContain passes (the processor never sees any
// other text); every message a family or the last-resort layer reads holds
// one of their cues, so MayContain passes it.
func (z *Recognizer) Recognize(text string) (grammar.Report, bool) {
	if !z.MayContain(text) {
		return grammar.Report{}, false
	}
	return z.recognizeUnfiltered(text)
}

// recognizeUnfiltered is Recognize without the prefilter (the tests check
// that it reads nothing MayContain rejects).
func (z *Recognizer) recognizeUnfiltered(text string) (grammar.Report, bool) {
	var info logtext.InfoLines
	var entries logtext.Entries
	var st speaker.Statements
	marks := st.Marks()
	return z.recognizeFlat(z.wrapWords.FlattenLevels(text, &info, &entries, &marks), &info, &entries, &st)
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

	// Speaker hooks (speakers.go): an allocation attempt inside a status
	// XLA's stack raised is a failure, the others are the record's
	// attempts; a code in a foreign statement is not XLA's.
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
	} else {
		// A catalog OOM code with no readable message (e.g. a truncated
		// "RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:").
		c, ok := details.StandaloneCode(codes)
		switch {
		case ok:
			r = grammar.Report{Family: grammar.FamilyCodeOnly, Code: c}
		default:
			// No family and no code: the last-resort layer (families/generic/generic.go).
			if r, ok = z.lastResort(flat, entries, st); !ok {
				return grammar.Report{}, false
			}
			traits = grammar.AdviceTraits{Own: diagnosis.GenericAdvice, OwnAction: diagnosis.GenericAction}
		}
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
	details.ReadAllocatorDump(&r, flat)
	// Multi-line breakdowns (TPU "Total hbm usage >= ...", "Largest program
	// allocations in hbm:", GPU "BufferAssignment stats:", "Peak buffers:",
	// XRT "Top-of-Memory reserved:") are read from the flattened text, so a
	// per-line prefixed and a one-line breakdown read alike (families/breakdown/breakdown.go).
	// No family pattern reaches into them: every headline ends before its
	// breakdown starts. Records without one pay a few substring searches.
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

// lastResort is the first statement of the last-resort layer
// (families/generic/generic.go) that the verdict's table takes for a
// failure: none in another program's statement, none in a log entry that
// holds an allocation attempt.
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
