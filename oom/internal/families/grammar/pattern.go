// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Pattern is a family's regexp, run only where its literal anchor occurs, on
// a bounded window around it.
type Pattern struct {
	anchor string
	// Lead is how many bytes of the message come before the anchor: exactly
	// (FixedLead) or at most.
	Lead      int
	FixedLead bool
	span      int // how far past the anchor a match may reach
	re        *regexp.Regexp
	groups    []namedGroup // in order
}

type namedGroup struct {
	name  string
	index int // submatch index in re
}

// defaultSpan bounds how far past its anchor a match may reach. Short
// windows keep every regexp run cheap (Go's backtracker clears state
// proportional to the input) and the total work linear in the record's
// length. The longest headline (program load) is under 250 bytes.
const defaultSpan = 320

// MaxLeadToken bounds what an unbounded repeat before the anchor (a number,
// a size or an allocator name) may match when the lead is computed: 64 bytes
// is more than any count (20 digits) or allocator name XLA prints.
const MaxLeadToken = 64

// CompilePattern compiles a family's expression. When the text before the
// anchor has a fixed length, the regexp is anchored there and runs once;
// otherwise it tries each start up to lead bytes before the anchor, from
// the farthest. It panics on a malformed entry (the table is built at
// start-up, so every test run catches it).
func CompilePattern(id, anchor, expr string, span int) Pattern {
	lead, fixed := computeLead(id, anchor, expr)
	if span == 0 {
		span = defaultSpan
	}
	var re *regexp.Regexp
	if fixed {
		re = regexp.MustCompile(`^(` + expr + `)`)
	} else {
		re = regexp.MustCompile(`^(?s:.{0,` + strconv.Itoa(lead) + `}?)(` + expr + `)`)
	}
	p := Pattern{anchor: anchor, Lead: lead, FixedLead: fixed, span: span, re: re}
	for i, name := range re.SubexpNames() {
		if name != "" {
			p.groups = append(p.groups, namedGroup{name, i})
		}
	}
	return p
}

// computeLead finds the anchor in a literal run of expr's top-level sequence
// and measures the text the expression matches before it.
func computeLead(id, anchor, expr string) (lead int, fixed bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic("oom: family " + id + ": " + err.Error())
	}
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	minLead, maxLead := 0, 0
	for _, p := range parts {
		if p.Op == syntax.OpLiteral && p.Flags&syntax.FoldCase == 0 {
			lit := string(p.Rune)
			if k := strings.Index(lit, anchor); k >= 0 {
				return maxLead + k, minLead == maxLead
			}
		}
		lo, hi := matchWidth(p)
		minLead, maxLead = minLead+lo, maxLead+hi
	}
	panic("oom: family " + id + ": the anchor " + strconv.Quote(anchor) +
		" is not literal text of the expression's top level: " + expr)
}

// matchWidth returns the fewest and the most bytes re matches, an unbounded
// repeat counting as at most maxLeadToken bytes.
func matchWidth(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpLiteral:
		n := len(string(re.Rune))
		return n, n
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, 1 // every class in the grammar is ASCII
	case syntax.OpCapture:
		return matchWidth(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			l, h := matchWidth(s)
			lo, hi = lo+l, hi+h
		}
		return lo, hi
	case syntax.OpAlternate:
		lo = -1
		for _, s := range re.Sub {
			l, h := matchWidth(s)
			if lo < 0 || l < lo {
				lo = l
			}
			hi = max(hi, h)
		}
		return lo, hi
	case syntax.OpQuest:
		_, h := matchWidth(re.Sub[0])
		return 0, h
	case syntax.OpStar, syntax.OpPlus:
		l, _ := matchWidth(re.Sub[0])
		if re.Op == syntax.OpStar {
			l = 0
		}
		return l, max(l, MaxLeadToken)
	case syntax.OpRepeat:
		l, h := matchWidth(re.Sub[0])
		if re.Max < 0 {
			return l * re.Min, max(l*re.Min, MaxLeadToken)
		}
		return l * re.Min, min(h*re.Max, max(h*re.Min, MaxLeadToken))
	}
	return 0, 0 // empty-width assertions
}

// Each calls fn for every match of p in s, in order.
func (p *Pattern) Each(s string, fn func(m Match)) {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], p.anchor)
		if i < 0 {
			return
		}
		i += from
		lo := max(i-p.Lead, from)
		if p.FixedLead && lo != i-p.Lead {
			from = i + 1 // the fixed text before the anchor is not there
			continue
		}
		hi := min(i+len(p.anchor)+p.span, len(s))
		loc := p.re.FindStringSubmatchIndex(s[lo:hi])
		if loc == nil {
			from = i + 1
			continue
		}
		for k := range loc {
			if loc[k] >= 0 {
				loc[k] += lo
			}
		}
		fn(Match{s, loc, p})
		from = max(loc[3], i+1)
	}
}

// EachAnchor calls fn with the index of every occurrence of anchor in s.
func EachAnchor(s, anchor string, fn func(i int)) {
	for from := 0; ; {
		i := strings.Index(s[from:], anchor)
		if i < 0 {
			return
		}
		fn(from + i)
		from += i + len(anchor)
	}
}
