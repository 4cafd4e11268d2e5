// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Error-code tokens: the catalog codes a record prints ("E1000:
// CompileTimeHbmOom:", a doc URL) and which of them belongs to the failure.

// CodeAt is an error code printed at a position of the text.
type CodeAt struct {
	At   int
	code string
}

// FindCodes lists the catalog codes printed in s: "E1000: CompileTimeHbmOom:",
// a bare "CompileTimeScopedVmemOom:", and the doc URLs. Every catalog name
// ends in one of codeNameEnds, so three searches find them all.
func FindCodes(s string, out []CodeAt) []CodeAt {
	for _, end := range codeNameEnds {
		grammar.EachAnchor(s, end, func(i int) {
			w := i
			for w > 0 && logheader.IsWordByte(s[w-1]) {
				w--
			}
			e, ok := grammar.LookupName(s[w : i+len(end)-1])
			if !ok {
				return
			}
			code := e.Code
			if p := printedCode(s[:w]); p != "" {
				if _, ok := grammar.LookupCode(p); ok {
					code = p
				}
			} else if code == grammar.CodeGeneric {
				return // a bare "ResourceExhausted:" is not XLA's code token
			}
			if len(out) < grammar.MaxCandidates {
				out = append(out, CodeAt{w, code})
			}
		})
	}
	grammar.EachAnchor(s, codeURL, func(i int) {
		if c := codeInURL(s[i+len(codeURL) : min(len(s), i+len(codeURL)+8)]); c != "" {
			if _, ok := grammar.LookupCode(c); ok && len(out) < grammar.MaxCandidates {
				out = append(out, CodeAt{i, c})
			}
		}
	})
	return out
}

// printedCode returns the "E1234" that ends before (followed by ": " or ":").
func printedCode(before string) string {
	b := strings.TrimSuffix(strings.TrimSuffix(before, " "), ":")
	if len(b) < 5 || b[len(b)-5] != 'E' || logheader.DigitsEnd(b, len(b)-4) != len(b) {
		return ""
	}
	if len(b) > 5 && logheader.IsWordByte(b[len(b)-6]) {
		return ""
	}
	return b[len(b)-5:]
}

// codeLeadSpan bounds how far before its message a failure's code may stand ("E1000: CompileTimeHbmOom: XLA:TPU
// compile permanent error. Ran out of memory ..."); one farther back is another message's.
const codeLeadSpan = 400

// CodeFor returns the code printed for the failure starting at at: the
// nearest one before it in the same message, else the first one after it
// (the "See ... for more details." trailer follows the message).
func CodeFor(codes []CodeAt, at int) (string, bool) {
	best, after := -1, -1
	for i, c := range codes {
		if c.At <= at && at-c.At <= codeLeadSpan && (best < 0 || c.At > codes[best].At) {
			best = i
		}
		if c.At > at && (after < 0 || c.At < codes[after].At) {
			after = i
		}
	}
	if best < 0 {
		best = after
	}
	if best < 0 {
		return "", false
	}
	e, _ := grammar.LookupCode(codes[best].code)
	return e.Code, true
}

// StandaloneCode returns an OOM catalog code printed without a readable
// message. The generic E0007 alone is not enough: it says nothing about memory.
func StandaloneCode(codes []CodeAt) (string, bool) {
	for _, c := range codes {
		if e, ok := grammar.LookupCode(c.code); ok && e.Code != grammar.CodeGeneric {
			return e.Code, true
		}
	}
	return "", false
}

// codeInURL reads the code from the text after "openxla.org/xla/errors":
// "/error_1000" or "#e1000".
func codeInURL(after string) string {
	rest, ok := strings.CutPrefix(after, "/error_")
	if !ok && len(after) > 2 && after[0] == '#' && after[1]|0x20 == 'e' {
		rest, ok = after[2:], true
	}
	if !ok || logheader.DigitsEnd(rest, 0) != 4 {
		return ""
	}
	return "E" + rest[:4]
}
