// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

// A match of a family's pattern, and what entries read from it.

// match is one match of a pattern in the flattened text.
type match struct {
	text    string
	loc     []int
	pattern *pattern
}

// group returns the text of the named group, or "" when it did not take part
// in the match (or the expression has no such group).
func (m match) group(name string) string {
	for _, g := range m.pattern.groups {
		if g.name == name {
			return m.submatch(g.index)
		}
	}
	return ""
}

func (m match) submatch(index int) string {
	k := 2 * index
	if k+1 >= len(m.loc) || m.loc[k] < 0 {
		return ""
	}
	return m.text[m.loc[k]:m.loc[k+1]]
}

// start is where the family's message starts (the expression's first byte).
func (m match) start() int { return m.loc[2] }

// took reports whether the named group took part in the match (it may have
// matched the empty string).
func (m match) took(name string) bool {
	for _, g := range m.pattern.groups {
		if g.name == name {
			k := 2 * g.index
			return k < len(m.loc) && m.loc[k] >= 0
		}
	}
	return false
}

// end is where the family's message ends in the flattened text.
func (m match) end() int { return m.loc[3] }
