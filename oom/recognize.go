// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// Recognize finds the XLA OOM failure in text, if any, and reads it.
//
// text may be one line or a whole multi-line record (a traceback, a log line
// followed by a BufferAssignment dump or a TPU breakdown). When a record holds
// several messages (an allocator warning, the "Execution of replica N failed"
// line, the exception), the first returned status is the failure; the BFC
// allocator's report of the request it could not serve is the failure only
// when no status is present. Allocation attempts (the driver's refusals that
// allocators retry, families_attempts.go) are never the failure.
// Compatible details of the other messages (device, backend, sizes of the
// same code) fill what the failure leaves empty.
//
// It accepts only what MayContain passes (the processor never sees any
// other text); every message a family or the last-resort layer reads holds
// one of their cues, so MayContain passes it.
func (z *Recognizer) Recognize(text string) (Report, bool) {
	if !z.MayContain(text) {
		return Report{}, false
	}
	return z.recognizeUnfiltered(text)
}

// recognizeUnfiltered is Recognize without the prefilter (the tests check
// that it reads nothing MayContain rejects).
func (z *Recognizer) recognizeUnfiltered(text string) (Report, bool) {
	var info infoLines
	var st statements
	marks := st.marks()
	return z.recognizeFlat(text, z.wrapWords.flattenLevels(text, &info, &marks), &info, &st)
}

// recognizeFlat is Recognize on text flattened to flat, whose statements'
// speakers are st. The last-resort layer reads text itself, entry by entry.
func (z *Recognizer) recognizeFlat(text, flat string, info *infoLines, st *statements) (Report, bool) {
	var buf [8]candidate
	cands := buf[:0]
	for i := range z.families {
		f := &z.families[i]
		f.each(flat, func(m match) {
			if guarded(flat, m.start()) || st.foreign(m.start()) { // speaker hook: another program's words
				return
			}
			if f.kind == logOnly && info.contains(m.start()) {
				return // an allocator or driver line at INFO: a retry the runtime survives
			}
			if len(cands) >= maxCandidates {
				return
			}
			r := Report{Family: f.id, Code: f.code, Phase: f.phase, Backend: f.backend}
			readStandardGroups(&r, m)
			if f.read == nil || f.read(&r, m) {
				cands = append(cands, candidate{f: f, at: m.start(), r: r, requestedToken: requestedToken(m)})
			}
		})
	}

	// Speaker hooks (speakers.go): an allocation attempt inside a status
	// XLA's stack raised is a failure, the others are the record's
	// attempts; a code in a foreign statement is not XLA's.
	var attempts attemptSeries
	cands = z.eachAttemptOrRaised(flat, st, cands, attempts.add)
	var codeBuf [4]codeAt
	codes := withoutForeign(findCodes(flat, codeBuf[:0]), st)

	var r Report
	var traits adviceTraits
	var failure *family // the primary candidate's family, nil for a bare code
	ownRequest := 0     // 1 when an attempt is the failing request itself
	exceptionAt := -1
	if p := primary(cands); p >= 0 {
		exceptionAt = cands[p].at
		r = cands[p].r
		for i := range cands {
			if i != p {
				mergeFrom(&r, &cands[i].r)
				preferExact(&r, cands[p].requestedToken, &cands[i])
			}
		}
		if c, ok := codeFor(codes, cands[p].at); ok {
			r.Code = c
		}
		if exactFromAttempt(&r, cands[p].requestedToken, &attempts) {
			ownRequest = 1
		}
		traits = cands[p].f.advice
		failure = cands[p].f
	} else {
		// A catalog OOM code with no readable message (e.g. a truncated
		// "RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:").
		c, ok := standaloneCode(codes)
		switch {
		case ok:
			r = Report{Family: familyCodeOnly, Code: c}
		default:
			// No family and no code: the last-resort layer (generic.go).
			if r, ok = recognizeGeneric(text, z.wrapWords, &z.compiled); !ok {
				return Report{}, false
			}
			traits = adviceTraits{own: genericAdvice, ownAction: genericAction}
		}
	}

	// The refusal of the failing request itself is the failure, not an
	// attempt on the way (explain counts alike).
	r.Attempts = attempts.count - ownRequest
	r.refusedBefore, r.ownRefused = r.Attempts, ownRequest == 1
	r.ExceptionType = st.exceptionType(exceptionAt)

	for _, d := range details {
		eachAnchor(flat, d.anchor, func(i int) {
			d.read(&r, flat[max(0, i-detailSpan):i], flat[i+len(d.anchor):min(len(flat), i+len(d.anchor)+detailSpan)])
		})
	}
	readAllocatorDump(&r, flat)
	// Multi-line breakdowns (TPU "Total hbm usage >= ...", "Largest program
	// allocations in hbm:", GPU "BufferAssignment stats:", "Peak buffers:",
	// XRT "Top-of-Memory reserved:") are read from the flattened text, so a
	// per-line prefixed and a one-line breakdown read alike (breakdown.go).
	// No family pattern reaches into them: every headline ends before its
	// breakdown starts. Records without one pay a few substring searches.
	if hasBreakdown(flat) {
		readBreakdown(&r.Breakdown, flat, MaxAllocations)
		if !r.Used.Known {
			r.Used = r.Breakdown.Allocated // XRT "Currently allocated": what is in use on the device
		}
	}
	finish(&r, flat, traits)
	if failure != nil && failure.category != "" && r.Code == failure.code {
		r.Category = failure.category
	}
	return r, true
}

// maxCandidates bounds the messages read from one record (a pathological
// record repeating a headline thousands of times costs no more memory).
const maxCandidates = 32

// candidate is one family match.
type candidate struct {
	f              *family
	at             int
	r              Report
	requestedToken string // Requested as printed
}

// primary picks the failure: the earliest returned status, else the earliest
// log-only line. It returns -1 when there is none.
func primary(c []candidate) int {
	best := -1
	for i := range c {
		iFatal, bestFatal := c[i].f.kind == fatal, best >= 0 && c[best].f.kind == fatal
		if best < 0 || iFatal && !bestFatal || iFatal == bestFatal && c[i].at < c[best].at {
			best = i
		}
	}
	return best
}

// guardSpan bounds how far before a match a guard phrase is looked for: the
// guard and the match must be in one sentence, and no guarded sentence is
// near this long.
const guardSpan = 1000

// guarded reports whether a guard phrase stands just before at, in the same
// sentence: the match is then a fallback or a start-up warning.
func guarded(s string, at int) bool {
	w := s[max(0, at-guardSpan):at]
	for _, g := range guards {
		if !strings.Contains(w, g) {
			continue
		}
		if k := strings.LastIndex(w, g); !strings.Contains(w[k+len(g):], ". ") {
			return true
		}
	}
	return false
}

// finish derives what the matched fields imply: catalog names, backend,
// cause and remediation.
func finish(r *Report, flat string, traits adviceTraits) {
	e, _ := lookupCode(r.Code)
	r.Code, r.Name, r.Category, r.DocURL = e.Code, e.Name, e.Category, e.DocURL
	if e.Phase != "" {
		r.Phase = e.Phase
	}
	if r.Phase == "" {
		r.Phase = PhaseRuntime
	}
	if r.MemorySpace == "" && strings.Contains(r.Device, "_HBM") {
		r.MemorySpace = "hbm"
	}
	if r.Backend == "" {
		r.Backend = evidenceBackend(flat)
	}
	if r.Cause == "" && r.Requested.Known && r.Free.Known { // the allocator's own summary may have told already
		if r.Free.Bytes >= r.Requested.Bytes {
			r.Cause = CauseFragmentation
		} else {
			r.Cause = CauseExhaustion
		}
	}
	r.Remediation, r.Action = adviseWithAction(r, flat, traits)
	r.Retry = RetryVerdict(r, 0)
	r.FitFraction = fitFraction(r)
}

// evidenceBackend returns the one backend whose evidence the text shows, or "".
func evidenceBackend(s string) string {
	found := ""
	for _, ev := range backendEvidence {
		for _, t := range ev.tokens {
			if strings.Contains(s, t) {
				if found != "" {
					return "" // evidence for two backends: do not guess
				}
				found = ev.backend
				break
			}
		}
	}
	return found
}
