// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

// A match of a family's pattern, and what entries read from it.

// Match is one match of a pattern in the flattened text.
type Match struct {
	Text    string
	Loc     []int
	pattern *Pattern
}

// Group returns the text of the named group, or "" when it did not take part
// in the match (or the expression has no such group).
func (m Match) Group(name string) string {
	for _, g := range m.pattern.groups {
		if g.name == name {
			return m.submatch(g.index)
		}
	}
	return ""
}

func (m Match) submatch(index int) string {
	k := 2 * index
	if k+1 >= len(m.Loc) || m.Loc[k] < 0 {
		return ""
	}
	return m.Text[m.Loc[k]:m.Loc[k+1]]
}

// Start is where the family's message starts (the expression's first byte).
func (m Match) Start() int { return m.Loc[2] }

// Took reports whether the named group took part in the match (it may have
// matched the empty string).
func (m Match) Took(name string) bool {
	for _, g := range m.pattern.groups {
		if g.name == name {
			k := 2 * g.index
			return k < len(m.Loc) && m.Loc[k] >= 0
		}
	}
	return false
}

// end is where the family's message ends in the flattened text.
func (m Match) end() int { return m.Loc[3] }

// MaxCandidates bounds the messages read from one record (a pathological
// record repeating a headline thousands of times costs no more memory).
const MaxCandidates = 32
