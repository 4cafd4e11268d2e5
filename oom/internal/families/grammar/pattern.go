// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// Pattern is a family's regexp, run only where its literal anchor occurs, on a bounded window around it.
type Pattern struct {
	anchor    string
	Lead      int // how many bytes of the message come before the anchor: exactly (FixedLead) or at most
	FixedLead bool
	span      int // how far past the anchor a match may reach
	re        *regexp.Regexp
	groups    []namedGroup // in order
}

type namedGroup struct {
	name  string
	index int // submatch index in re
}

// defaultSpan bounds how far past its anchor a match may reach: Go's backtracker clears state proportional to
// the input, so short windows keep the work linear in the record. The longest headline is under 250 bytes.
const defaultSpan = 320

// MaxLeadToken bounds what an unbounded repeat before the anchor may match: more than any count or allocator name.
const MaxLeadToken = 64

// CompilePattern compiles a family's expression: anchored before the anchor when the text there has a fixed
// length, else tried from each start up to lead bytes before it. It panics on a malformed entry.
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

// computeLead measures the text expr matches before the anchor, a literal of its top-level sequence.
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

// matchWidth returns the fewest and the most bytes re matches, an unbounded repeat at most MaxLeadToken.
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

// Match is one match of a pattern in the flattened text.
type Match struct {
	Text    string
	Loc     []int
	pattern *Pattern
}

// Group returns the text of the named group, "" when it took no part in the match.
func (m Match) Group(name string) string { return m.submatch(m.index(name)) }

func (m Match) submatch(index int) string {
	from, to, ok := m.span(index)
	if !ok {
		return ""
	}
	return m.Text[from:to]
}

func (m Match) index(name string) int {
	for _, g := range m.pattern.groups {
		if g.name == name {
			return g.index
		}
	}
	return -1
}

// span returns where the group of submatch index starts and ends; ok is false when it took no part.
func (m Match) span(index int) (from, to int, ok bool) {
	k := 2 * index
	if k < 0 || k+1 >= len(m.Loc) || m.Loc[k] < 0 {
		return 0, 0, false
	}
	return m.Loc[k], m.Loc[k+1], true
}

// Start is where the family's message starts (the expression's first byte).
func (m Match) Start() int { return m.Loc[2] }

// Took reports whether the named group took part in the match (perhaps matching "").
func (m Match) Took(name string) bool {
	_, _, ok := m.span(m.index(name))
	return ok
}

func (m Match) end() int { return m.Loc[3] }

// MaxCandidates bounds the messages read from one record, so a headline repeated thousands of times costs no more.
const MaxCandidates = 32

// IsSizeGroup reports whether a standard group name holds a size.
func IsSizeGroup(name string) bool {
	_, plain := PlainSizeGroups[name]
	return plain || name == "requested" || name == "requested_exact"
}

// cutAtEnd reports whether the text may end inside group index of m ("allocate 896." may be "896.00MiB" cut:
// shippers cut long lines at 16 KiB or less); a size that ends in its unit is complete.
func cutAtEnd(m Match, index int) bool {
	from, to, ok := m.span(index)
	if !ok || to == from || !logheader.IsDigit(m.Text[to-1]) {
		return false
	}
	rest := m.Text[to:]
	return rest == "" || rest == "." || rest == ","
}

// CutAtEndOf reports whether the named group ends the text.
func CutAtEndOf(m Match, name string) bool {
	_, to, ok := m.span(m.index(name))
	return ok && to == len(m.Text)
}

// CutInside reports whether what follows m up to the end of the text is a prefix of phrase.
func CutInside(m Match, phrase string) bool {
	return strings.HasPrefix(phrase, m.Text[m.end():])
}

// Compiled is the family table compiled, in matching order.
type Compiled struct {
	Families []Family
	Warnings []WarningFamily
	Attempts []int // the indexes in Warnings of the allocation attempts
}

// EachAttempt calls fn with each allocation attempt in flat that isAttempt (the role table's) accepts.
func (c *Compiled) EachAttempt(flat string, isAttempt func(at int) bool, fn func(at int, r *Report, requested string)) {
	for _, i := range c.Attempts {
		w := &c.Warnings[i]
		w.Each(flat, func(m Match) {
			if !isAttempt(m.Start()) {
				return
			}
			r := Report{Backend: w.Backend}
			ReadStandardGroups(&r, m)
			if w.Read == nil || w.Read(&r, m) {
				fn(m.Start(), &r, RequestedToken(m))
			}
		})
	}
}

// HasAttempt reports whether flat holds an allocation attempt.
func (c *Compiled) HasAttempt(flat string, isAttempt func(at int) bool) bool {
	found := false
	c.EachAttempt(flat, isAttempt, func(int, *Report, string) { found = true })
	return found
}
