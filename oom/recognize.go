// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/diagnosis"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/breakdown"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/role"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
)

// Recognize finds and reads the XLA OOM failure in text (one line or a whole record): of several messages
// the first returned status is the failure, and compatible details of the others fill its gaps.
func (z *Recognizer) Recognize(text string) (grammar.Report, bool) {
	if !z.MayContain(text) {
		return grammar.Report{}, false
	}
	return z.recognizeUnfiltered(text)
}

// recognizeUnfiltered is Recognize without the prefilter (the tests check it reads nothing MayContain rejects).
func (z *Recognizer) recognizeUnfiltered(text string) (grammar.Report, bool) {
	f := z.Find(text, false)
	return f.Report, f.Found == FoundReport
}

// recognizeFlat is Recognize on flattened text, with its INFO spans, log entries and statements' speakers.
func (z *Recognizer) recognizeFlat(flat string, info *logtext.InfoLines, entries *logtext.Entries, st *speaker.Attribution) (grammar.Report, bool) {
	var buf [8]role.Candidate
	cands := buf[:0]
	for i := range z.Families {
		f := &z.Families[i]
		f.Each(flat, func(m grammar.Match) {
			v := role.Of(role.Facts{
				Kind:    role.KindOf(f.Kind),
				Foreign: st.Foreign(m.Start()),
				Guarded: details.Guarded(flat, m.Start()),
				AtInfo:  info.Contains(m.Start()),
			})
			if v == role.Dropped || len(cands) >= grammar.MaxCandidates {
				return
			}
			r := grammar.Report{Family: f.ID, Code: f.Code, Phase: f.Phase, Backend: f.Backend}
			grammar.ReadStandardGroups(&r, m)
			if f.Read == nil || f.Read(&r, m) {
				cands = append(cands, role.Candidate{F: f, Role: v, At: m.Start(), R: r, RequestedToken: grammar.RequestedToken(m)})
			}
		})
	}

	// An attempt inside a status XLA's stack raised is a failure; a code in a foreign statement is not XLA's.
	var attempts role.AttemptSeries
	cands = z.eachAttemptOrRaised(flat, st, cands, attempts.Add)
	var codeBuf [4]details.CodeAt
	codes := role.WithoutForeign(details.FindCodes(flat, codeBuf[:0]), st)

	var r grammar.Report
	var traits grammar.AdviceTraits
	var failure *grammar.Family // the primary candidate's family, nil for a bare code
	ownRequest := 0             // 1 when an attempt is the failing request itself
	exceptionAt := -1
	if p := role.Primary(cands); p >= 0 {
		exceptionAt = cands[p].At
		r = cands[p].R
		for i := range cands {
			if i != p {
				role.MergeFrom(&r, &cands[i].R)
				role.PreferExact(&r, cands[p].RequestedToken, &cands[i])
			}
		}
		if c, ok := details.CodeFor(codes, cands[p].At); ok {
			r.Code = c
		}
		if role.ExactFromAttempt(&r, cands[p].RequestedToken, &attempts) {
			ownRequest = 1
		}
		traits = cands[p].F.Advice
		failure = cands[p].F
	} else if c, ok := details.StandaloneCode(codes); ok {
		// A catalog OOM code with no readable message ("RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:").
		r = grammar.Report{Family: grammar.FamilyCodeOnly, Code: c}
	} else {
		if r, ok = z.lastResort(flat, entries, st); !ok {
			return grammar.Report{}, false
		}
		traits = grammar.AdviceTraits{Own: diagnosis.GenericAdvice, OwnAction: diagnosis.GenericAction}
	}

	// The refusal of the failing request itself is the failure, not an attempt on the way.
	r.Attempts = attempts.Count - ownRequest
	r.AttemptsInText, r.OwnRefused = r.Attempts, ownRequest == 1
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
	// Read flattened, a per-line prefixed and a one-line breakdown read alike.
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

// lastResort is the first last-resort statement that the role table takes for a failure.
func (z *Recognizer) lastResort(flat string, entries *logtext.Entries, st *speaker.Attribution) (r grammar.Report, found bool) {
	generic.EachCandidate(flat, entries, func(c *generic.Candidate) bool {
		beside := z.HasAttempt(flat[c.From:c.To], func(at int) bool { return role.AttemptAt(st, c.From+at) == role.Attempt })
		if role.Of(role.Facts{Kind: role.LastResort, Foreign: st.Foreign(c.At), BesideAttempt: beside}) == role.Dropped {
			return false
		}
		r, found = c.R, true
		return true
	})
	return r, found
}

// Found says what Find found in a text.
type Found uint8

// The values of Found.
const (
	FoundNothing Found = iota // neither a failure nor (when asked for) a warning
	FoundReport               // an XLA OOM failure, in Finding.Report
	FoundWarning              // no failure, but a memory-pressure warning, in Finding.Warning
)

// Finding is what one text holds: its failure, else its warning.
type Finding struct {
	Found   Found
	Report  grammar.Report  // when Found is FoundReport
	Warning grammar.Warning // when Found is FoundWarning
}

// Find reads text once, flattened once, for its failure and, when warnings is set and there is none, its warning.
func (z *Recognizer) Find(text string, warnings bool) Finding {
	var info logtext.InfoLines
	var entries logtext.Entries
	var st speaker.Attribution
	marks := st.Marks()
	flat := z.wrapWords.FlattenLevels(text, &info, &entries, &marks)
	if r, ok := z.recognizeFlat(flat, &info, &entries, &st); ok {
		if r.Framework == "" && len(flat) != len(text) { // flattening dropped the log headers, whose source paths may name the framework
			if fw := grammar.FrameworkOf(text); fw != "" {
				diagnosis.Reframe(&r, fw)
			}
		}
		return Finding{Found: FoundReport, Report: r}
	}
	if warnings {
		if w, ok := z.recognizeWarningFlat(flat, &st); ok {
			return Finding{Found: FoundWarning, Warning: w}
		}
	}
	return Finding{}
}

// eachAttemptOrRaised is EachAttempt that also adds to cands, as candidates of their raised family, the
// attempts in a status XLA's stack raised (docs/recognition.md, "Who said it").
func (z *Recognizer) eachAttemptOrRaised(flat string, st *speaker.Attribution, cands []role.Candidate, fn func(at int, r *grammar.Report, requested string)) []role.Candidate {
	for k, i := range z.Attempts {
		w := &z.Warnings[i]
		f := z.raisedAs[k] // nil when the last-resort layer reads its raised form
		w.Each(flat, func(m grammar.Match) {
			at := m.Start()
			v := role.AttemptAt(st, at) // Dropped, Failure (raised) or Attempt
			if v == role.Dropped || v == role.Failure && (f == nil || len(cands) >= grammar.MaxCandidates) {
				return
			}
			r := grammar.Report{Backend: w.Backend}
			if v == role.Failure {
				r = grammar.Report{Family: f.ID, Code: f.Code, Phase: f.Phase, Backend: f.Backend}
			}
			grammar.ReadStandardGroups(&r, m)
			if w.Read != nil && !w.Read(&r, m) {
				return
			}
			if v == role.Failure {
				cands = append(cands, role.Candidate{F: f, Role: v, At: at, R: r, RequestedToken: grammar.RequestedToken(m)})
				return
			}
			fn(at, &r, grammar.RequestedToken(m))
		})
	}
	return cands
}

// raisedFamily is the failure family an attempt's raised form is read as, nil for none; it panics on an unknown id.
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

// RecognizeWarning finds the earliest memory-pressure warning in text that Recognize did not take as an OOM.
func (z *Recognizer) RecognizeWarning(text string) (grammar.Warning, bool) {
	if !z.MayContain(text) {
		return grammar.Warning{}, false // as Recognize: only what the prefilter passes
	}
	var st speaker.Attribution
	marks := st.Marks()
	flat := z.wrapWords.FlattenLevels(text, nil, nil, &marks)
	return z.recognizeWarningFlat(flat, &st)
}

// recognizeWarningFlat is RecognizeWarning on flattened text whose statements' speakers are st.
func (z *Recognizer) recognizeWarningFlat(flat string, st *speaker.Attribution) (grammar.Warning, bool) {
	best, at := grammar.Warning{}, -1
	for i := range z.Warnings {
		f := &z.Warnings[i]
		f.Each(flat, func(m grammar.Match) {
			if at >= 0 && m.Start() >= at || role.WarningAt(st, m.Start()) == role.Dropped {
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
		var s role.AttemptSeries
		z.EachAttempt(flat, func(at int) bool { return role.AttemptAt(st, at) == role.Attempt }, s.Add)
		best.Attempts = s.Count
		if s.Count > 1 {
			best.Requested, best.Last = s.First, s.Last
		}
	}
	best.Explanation = grammar.Explanations[best.Kind]
	return best, true
}
