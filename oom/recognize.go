// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// Recognize finds the XLA OOM failure in text, if any, and reads it.
//
// text may be one line or a whole multi-line record (a traceback, a log line
// followed by a BufferAssignment dump or a TPU breakdown). When a record holds
// several messages (an allocator warning, the "Execution of replica N failed"
// line, the exception), the first returned status is the failure; log-only
// allocator and driver lines are reported only when no status is present.
// Compatible details of the other messages (device, backend, sizes of the
// same code) fill what the failure leaves empty.
//
// It accepts only what MayContain passes (the processor never sees any
// other text): a family headline quoted bare, with no status, wrapper or
// cue of its own, is not read (see MayContain).
func Recognize(text string) (Report, bool) {
	if !MayContain(text) {
		return Report{}, false
	}
	var info infoLines
	flat := flattenLevels(text, &info)

	var buf [8]candidate
	cands := buf[:0]
	for i := range families {
		f := &families[i]
		if f.kind == warning {
			continue // warnings never make a record an OOM
		}
		f.each(flat, func(m match) {
			if guarded(flat, m.start()) {
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

	var codeBuf [4]codeAt
	codes := findCodes(flat, codeBuf[:0])

	var r Report
	var traits adviceTraits
	var failure *family // the primary candidate's family, nil for a bare code
	if p := primary(cands); p >= 0 {
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
			if r, ok = recognizeGeneric(text); !ok {
				return Report{}, false
			}
			traits = adviceTraits{own: genericAdvice}
		}
	}

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

// mergeFrom fills fields r left empty from another message of the same
// record. Sizes and memory details move only between messages of one code.
func mergeFrom(r, o *Report) {
	setString(&r.Device, o.Device)
	if r.Backend == "" {
		r.Backend = o.Backend
	}
	if o.Code != r.Code {
		return
	}
	setString(&r.MemorySpace, o.MemorySpace)
	setString(&r.Instruction, o.Instruction)
	for _, f := range [...]struct{ dst, src *Size }{
		{&r.Requested, &o.Requested}, {&r.Free, &o.Free}, {&r.Used, &o.Used}, {&r.Capacity, &o.Capacity},
		{&r.Exceeded, &o.Exceeded}, {&r.Reserved, &o.Reserved}, {&r.Reservable, &o.Reservable},
	} {
		if !f.dst.Known {
			*f.dst = *f.src
		}
	}
	if r.Words == (SparseCoreWords{}) {
		r.Words = o.Words
	}
}

// preferExact gives r the exact request another message of the record
// prints for the same allocation, when r's own is a rounded human size:
// "Out of memory while trying to allocate 93.13GiB" after the allocator's
// "93.13GiB (rounded to 100000000000)".
func preferExact(r *Report, printed string, o *candidate) {
	if printed == "" || isExactToken(printed) || !isExactToken(o.requestedToken) || !o.r.Requested.Known || o.r.Code != r.Code {
		return
	}
	if formatHuman(o.r.Requested.Bytes, strings.HasSuffix(printed, "iB")) == printed {
		r.Requested = o.r.Requested
	}
}

// guarded reports whether a guard phrase stands just before at, in the same
// sentence: the match is then a fallback or a start-up warning.
func guarded(s string, at int) bool {
	w := s[max(0, at-1000):at]
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

// codeAt is an error code printed at a position of the text.
type codeAt struct {
	at   int
	code string
}

// findCodes lists the catalog codes printed in s: "E1000: CompileTimeHbmOom:",
// a bare "CompileTimeScopedVmemOom:", and the doc URLs. Every catalog name
// ends in one of codeNameEnds, so three searches find them all.
func findCodes(s string, out []codeAt) []codeAt {
	for _, end := range codeNameEnds {
		for from := 0; ; {
			i := strings.Index(s[from:], end)
			if i < 0 {
				break
			}
			i += from
			from = i + len(end)
			w := i
			for w > 0 && isWordByte(s[w-1]) {
				w--
			}
			e, ok := lookupName(s[w : i+len(end)-1])
			if !ok {
				continue
			}
			code := e.Code
			if p := printedCode(s[:w]); p != "" {
				if _, ok := lookupCode(p); ok {
					code = p
				}
			} else if code == codeGeneric {
				continue // a bare "ResourceExhausted:" is not XLA's code token
			}
			if len(out) < maxCandidates {
				out = append(out, codeAt{w, code})
			}
		}
	}
	eachAnchor(s, codeURL, func(i int) {
		if c := codeInURL(s[i+len(codeURL) : min(len(s), i+len(codeURL)+8)]); c != "" {
			if _, ok := lookupCode(c); ok && len(out) < maxCandidates {
				out = append(out, codeAt{i, c})
			}
		}
	})
	return out
}

// printedCode returns the "E1234" that ends before (followed by ": " or ":").
func printedCode(before string) string {
	b := strings.TrimSuffix(strings.TrimSuffix(before, " "), ":")
	if len(b) < 5 || b[len(b)-5] != 'E' || digitsEnd(b, len(b)-4) != len(b) {
		return ""
	}
	if len(b) > 5 && isWordByte(b[len(b)-6]) {
		return ""
	}
	return b[len(b)-5:]
}

// codeFor returns the code printed for the failure starting at at: the
// nearest one before it in the same message, else the first one after it
// (the "See ... for more details." trailer follows the message).
func codeFor(codes []codeAt, at int) (string, bool) {
	best, after := -1, -1
	for i, c := range codes {
		if c.at <= at && at-c.at <= 400 && (best < 0 || c.at > codes[best].at) {
			best = i
		}
		if c.at > at && (after < 0 || c.at < codes[after].at) {
			after = i
		}
	}
	if best < 0 {
		best = after
	}
	if best < 0 {
		return "", false
	}
	e, _ := lookupCode(codes[best].code)
	return e.Code, true
}

// standaloneCode returns an OOM catalog code printed without a readable
// message. The generic E0007 alone is not enough: it says nothing about memory.
func standaloneCode(codes []codeAt) (string, bool) {
	for _, c := range codes {
		if e, ok := lookupCode(c.code); ok && e.Code != codeGeneric {
			return e.Code, true
		}
	}
	return "", false
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
	r.Remediation = remediate(r, flat, traits)
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
