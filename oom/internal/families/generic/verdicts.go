// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package generic

import "github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"

// Verdicts is what the verdict layer says of the last-resort layer's
// statements (its table's last rows).
type Verdicts interface {
	// EntryMayFail: a statement of the flattened entry flat may be a
	// failure (none is, beside an allocation attempt).
	EntryMayFail(flat string, st *speaker.Statements) bool
	// StatementMayFail: the statement at position at may be a failure
	// (none is, in another program's statement).
	StatementMayFail(st *speaker.Statements, at int) bool
}
