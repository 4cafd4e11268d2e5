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

// cutAtEnd reports whether the text may end inside group index of m: the
// group ends in a digit and at most a "." or "," follows it before the end
// ("allocate 896." may be "allocate 896.00MiB" cut). A size that ends in
// its unit is complete even there.
func cutAtEnd(m Match, index int) bool {
	from, to, ok := m.span(index)
	if !ok || to == from || !logtext.IsDigit(m.Text[to-1]) {
		return false
	}
	rest := m.Text[to:]
	return rest == "" || rest == "." || rest == ","
}

// CutAtEndOf reports whether the named group ends the text (the cut may fall
// inside it).
func CutAtEndOf(m Match, name string) bool {
	_, to, ok := m.span(m.index(name))
	return ok && to == len(m.Text)
}

// CutInside reports whether the text ends right after m, inside phrase: what
// follows the match is a (possibly empty) prefix of phrase.
func CutInside(m Match, phrase string) bool {
	return strings.HasPrefix(phrase, m.Text[m.end():])
}
