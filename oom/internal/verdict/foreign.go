// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package verdict

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
)

// The verdict where the speaker of a statement decides: the table's rows
// asked at a position of a text whose statements' speakers are st.

// WithoutForeign drops the codes the table drops: those printed in
// another program's statements.
func WithoutForeign(codes []details.CodeAt, st *speaker.Statements) []details.CodeAt {
	if st == nil || st.N == 0 {
		return codes
	}
	kept := codes[:0]
	for _, c := range codes {
		if Of(Statement{Kind: CodeToken, Foreign: st.Foreign(c.At)}) != Dropped {
			kept = append(kept, c)
		}
	}
	return kept
}

// AttemptAt is the verdict on an attempt family's match at position at:
// Attempt, Failure inside a status XLA's stack raised, Dropped in another
// program's statement.
func AttemptAt(st *speaker.Statements, at int) Verdict {
	return Of(Statement{Kind: AttemptLine, Foreign: st.Foreign(at), Raised: st.Raised(at)})
}

// WarningAt is the verdict on a warning family's match at position at.
func WarningAt(st *speaker.Statements, at int) Verdict {
	return Of(Statement{Kind: WarningLine, Foreign: st.Foreign(at)})
}
