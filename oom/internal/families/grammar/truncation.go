// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Messages cut short. Log shippers cut long lines (container runtimes at
// 16 KiB, many backends at a few KiB), people paste partial lines, issue
// titles are truncated. A family's expression keeps its later clauses
// optional so that the anchor and the sizes before the cut still read; a
// size the cut falls inside is left unset, never guessed.

// IsSizeGroup reports whether a standard group name holds a size.
func IsSizeGroup(name string) bool {
	_, plain := PlainSizeGroups[name]
	return plain || name == "requested" || name == "requested_exact"
}

// cutAtEnd reports whether the text may end in the middle of group index of
// m: the group is a bare number (it ends in a digit) and nothing but a
// decimal point or a separator follows it before the end of the text
// ("allocate 896." may be "allocate 896.00MiB" cut). A size that ends in
// its unit ("16.42M", "6.00MiB", "0B") is complete even there. Families
// whose message ends with a bare number read it themselves, not through a
// standard group.
func cutAtEnd(m Match, index int) bool {
	k := 2 * index
	if k+1 >= len(m.Loc) || m.Loc[k] < 0 || m.Loc[k+1] == m.Loc[k] || !logtext.IsDigit(m.Text[m.Loc[k+1]-1]) {
		return false
	}
	rest := m.Text[m.Loc[k+1]:]
	return rest == "" || rest == "." || rest == ","
}

// CutAtEndOf reports whether the named group ends the text (the cut may fall
// inside it).
func CutAtEndOf(m Match, name string) bool {
	for _, g := range m.pattern.groups {
		if g.name == name {
			k := 2 * g.index
			return k+1 < len(m.Loc) && m.Loc[k] >= 0 && m.Loc[k+1] == len(m.Text)
		}
	}
	return false
}

// CutInside reports whether the text ends right after m, inside phrase: what
// follows the match is a (possibly empty) prefix of phrase.
func CutInside(m Match, phrase string) bool {
	return isPrefixOf(m.Text[m.end():], phrase)
}

// isPrefixOf reports whether cut is where phrase may have been cut: a
// (possibly empty) prefix of it.
func isPrefixOf(cut, phrase string) bool { return strings.HasPrefix(phrase, cut) }
