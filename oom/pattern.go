package oom

import (
	"regexp"
	"strconv"
	"strings"
)

// pattern is a regexp that runs only where its literal anchor occurs.
type pattern struct {
	anchor string
	back   int  // how far before the anchor a match starts (exact) or may start
	exact  bool // the match starts exactly back bytes before the anchor
	span   int  // how far past the anchor a match may reach
	re     *regexp.Regexp
}

// defaultSpan bounds how far past its anchor a match may reach. Short
// windows keep every regexp run cheap (Go's backtracker clears state
// proportional to the input) and the total work linear in the record's
// length. The longest headline (program load) is under 250 bytes.
const defaultSpan = 320

// pat compiles expr, whose match starts exactly back bytes before anchor
// (expr's text before the anchor has that fixed length). The regexp is
// anchored, so it runs once, from that start.
func pat(anchor string, back int, expr string) pattern {
	checkAnchor(anchor, expr)
	return pattern{anchor, back, true, defaultSpan, regexp.MustCompile(`^(` + expr + `)`)}
}

// patUpTo compiles expr, whose match starts at most back bytes before anchor
// (a number or a name of varying length comes first). The regexp tries each
// start in that range, from the farthest, and keeps the first that matches.
func patUpTo(anchor string, back int, expr string) pattern {
	checkAnchor(anchor, expr)
	return pattern{anchor, back, false, defaultSpan, regexp.MustCompile(`^(?s:.{0,` + strconv.Itoa(back) + `}?)(` + expr + `)`)}
}

func checkAnchor(anchor, expr string) {
	if !strings.Contains(strings.ReplaceAll(expr, `\`, ""), anchor) {
		panic("oom: pattern " + expr + " does not contain its anchor " + anchor)
	}
}

// withSpan returns p reaching n bytes past its anchor.
func (p pattern) withSpan(n int) pattern {
	p.span = n
	return p
}

// each calls fn for every match of p in s, in order.
func (p *pattern) each(s string, fn func(m match)) {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], p.anchor)
		if i < 0 {
			return
		}
		i += from
		lo := max(i-p.back, from)
		if p.exact && lo != i-p.back {
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
		fn(match{s, loc})
		from = max(loc[3], i+1)
	}
}

// match is one match of a pattern in the flattened text.
type match struct {
	s   string
	loc []int
}

// g returns the text of expr's group i (1-based), or "".
func (m match) g(i int) string {
	k := 2 * (i + 1)
	if k+1 >= len(m.loc) || m.loc[k] < 0 {
		return ""
	}
	return m.s[m.loc[k]:m.loc[k+1]]
}

func (m match) start() int { return m.loc[2] }

// eachAnchor calls fn with the index of every occurrence of anchor in s.
func eachAnchor(s, anchor string, fn func(i int)) {
	for from := 0; ; {
		i := strings.Index(s[from:], anchor)
		if i < 0 {
			return
		}
		fn(from + i)
		from += i + len(anchor)
	}
}
