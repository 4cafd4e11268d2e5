// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

// Match is one match of a pattern in the flattened text.
type Match struct {
	Text    string
	Loc     []int
	pattern *Pattern
}

// Group returns the text of the named group, or "" when it did not take part
// in the match (or the expression has no such group).
func (m Match) Group(name string) string { return m.submatch(m.index(name)) }

func (m Match) submatch(index int) string {
	from, to, ok := m.span(index)
	if !ok {
		return ""
	}
	return m.Text[from:to]
}

// index returns the submatch index of the named group, -1 when there is none.
func (m Match) index(name string) int {
	for _, g := range m.pattern.groups {
		if g.name == name {
			return g.index
		}
	}
	return -1
}

// span returns where the group of submatch index starts and ends; ok is
// false when it did not take part in the match.
func (m Match) span(index int) (from, to int, ok bool) {
	k := 2 * index
	if k < 0 || k+1 >= len(m.Loc) || m.Loc[k] < 0 {
		return 0, 0, false
	}
	return m.Loc[k], m.Loc[k+1], true
}

// Start is where the family's message starts (the expression's first byte).
func (m Match) Start() int { return m.Loc[2] }

// Took reports whether the named group took part in the match (it may have
// matched the empty string).
func (m Match) Took(name string) bool {
	_, _, ok := m.span(m.index(name))
	return ok
}

// end is where the family's message ends in the flattened text.
func (m Match) end() int { return m.Loc[3] }

// MaxCandidates bounds the messages read from one record (a pathological
// record repeating a headline thousands of times costs no more memory).
const MaxCandidates = 32
