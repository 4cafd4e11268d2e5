// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// Error-code tokens: the catalog codes a record prints ("E1000:
// CompileTimeHbmOom:", a doc URL) and which of them belongs to the failure.

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

// codeLeadSpan bounds how far before a failure's message the code printed
// for it may stand ("E1000: CompileTimeHbmOom: XLA:TPU compile permanent
// error. Ran out of memory ..."); a code farther back belongs to another
// message.
const codeLeadSpan = 400

// codeFor returns the code printed for the failure starting at at: the
// nearest one before it in the same message, else the first one after it
// (the "See ... for more details." trailer follows the message).
func codeFor(codes []codeAt, at int) (string, bool) {
	best, after := -1, -1
	for i, c := range codes {
		if c.at <= at && at-c.at <= codeLeadSpan && (best < 0 || c.at > codes[best].at) {
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

// codeInURL reads the code from the text after "openxla.org/xla/errors":
// "/error_1000" or "#e1000".
func codeInURL(after string) string {
	var rest string
	if r, ok := strings.CutPrefix(after, "/error_"); ok {
		rest = r
	} else if len(after) > 2 && after[0] == '#' && (after[1] == 'e' || after[1] == 'E') {
		rest = after[2:]
	} else {
		return ""
	}
	if digitsEnd(rest, 0) != 4 {
		return ""
	}
	return "E" + rest[:4]
}
