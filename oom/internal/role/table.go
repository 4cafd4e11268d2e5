// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package role decides what each statement of a record is (the failure, an allocation attempt, a warning
// or nothing) in one table, then which candidate is the failure and how the others merge into it.
package role

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
)

// Role is what one statement is for its record.
type Role uint8

// The roles.
const (
	Dropped             Role = iota // not a statement of an out-of-memory failure here
	Failure                         // the failure; of several, the earliest, the others lending it their details
	FailureUnlessStatus             // the failure only when no statement of the record is a Failure
	Attempt                         // a refusal an allocator retries: counted in a failure's record, a warning alone
	Warning                         // memory pressure while the program goes on
)

var roleNames = [...]string{"dropped", "failure", "failure unless a status", "attempt", "warning"}

// String names v for the tests and the docs.
func (v Role) String() string { return roleNames[v] }

// Kind is what the grammar made of a statement.
type Kind uint8

// The statement kinds.
const (
	AnyKind     Kind = iota // in a row: a statement of every kind
	Status                  // a failure family's returned status (grammar.Fatal)
	LogLine                 // a failure family's allocator or driver line (grammar.LogOnly)
	AttemptLine             // an allocation attempt family's driver refusal
	WarningLine             // a memory-pressure warning family's line
	CodeToken               // a catalog OOM code printed in the text
	LastResort              // a statement of the last-resort layer
)

var kindNames = [...]string{"any", "status", "log line", "attempt", "warning", "code", "last resort"}

// String names k for the tests and the docs.
func (k Kind) String() string { return kindNames[k] }

// Is is a condition on one yes/no fact of a statement.
type Is uint8

// The values of Is.
const (
	Any Is = iota // either
	Yes           // true
	No            // false
)

func (c Is) holds(b bool) bool { return c == Any || (c == Yes) == b }

// Facts is what the role reads of one statement of a record.
type Facts struct {
	Kind          Kind
	Foreign       bool // another program printed it (package speaker)
	Raised        bool // a status XLA's stack raised (a JAX, TensorFlow, PyTorch/XLA or XLA exception)
	Guarded       bool // a guard phrase stands before it in its sentence
	AtInfo        bool // logged at INFO
	BesideAttempt bool // its log entry holds an allocation attempt
}

// Row is one line of the table.
type Row struct {
	Kind                                     Kind
	Foreign, Raised, Guarded, AtInfo, Beside Is
	Role                                     Role
	Why                                      string
}

func (r *Row) holds(s Facts) bool {
	return (r.Kind == AnyKind || r.Kind == s.Kind) && r.Foreign.holds(s.Foreign) && r.Raised.holds(s.Raised) &&
		r.Guarded.holds(s.Guarded) && r.AtInfo.holds(s.AtInfo) && r.Beside.holds(s.BesideAttempt)
}

// Table decides every statement of a record: the first row that holds gives its role, the speaker first, so a
// later row needs no condition an earlier one of its kind settled. It is the one place that says what is a failure, an
// attempt, a warning or nothing (TestTableIsComplete). A condition left out is Any.
var Table = []Row{
	{Foreign: Yes, Role: Dropped, Why: "another program's statement: never XLA's, whatever it says"},
	{Kind: Status, Guarded: Yes, Role: Dropped, Why: "a guard phrase before it: a fallback or a start-up warning"},
	{Kind: Status, Role: Failure, Why: "a returned status: what the program fails with"},
	{Kind: LogLine, Guarded: Yes, Role: Dropped, Why: "a guard phrase before it: a fallback or a start-up warning"},
	{Kind: LogLine, AtInfo: Yes, Role: Dropped, Why: "an allocator or driver line at INFO: a retry survived"},
	{Kind: LogLine, Role: FailureUnlessStatus, Why: "an allocator or driver line: the failure without a status"},
	{Kind: AttemptLine, Raised: Yes, Role: Failure, Why: "a refusal inside a status XLA's stack raised"},
	{Kind: AttemptLine, Role: Attempt, Why: "a driver refusal an allocator retries"},
	{Kind: WarningLine, Role: Warning, Why: "memory pressure while the program goes on"},
	{Kind: CodeToken, Role: Failure, Why: "a catalog OOM code: the failure's code; alone, the failure"},
	{Kind: LastResort, Beside: Yes, Role: Dropped, Why: "a refusal beside an allocation attempt: the attempt's"},
	{Kind: LastResort, Role: Failure, Why: "a memory failure no family knows, in an error context"},
}

// Of returns the role of s: the first row of Table that holds, Dropped when none does.
func Of(s Facts) Role {
	for i := range Table {
		if Table[i].holds(s) {
			return Table[i].Role
		}
	}
	return Dropped
}

// WithoutForeign drops the codes printed in another program's statements.
func WithoutForeign(codes []details.CodeAt, st *speaker.Attribution) []details.CodeAt {
	if st == nil || st.N == 0 {
		return codes
	}
	kept := codes[:0]
	for _, c := range codes {
		if Of(Facts{Kind: CodeToken, Foreign: st.Foreign(c.At)}) != Dropped {
			kept = append(kept, c)
		}
	}
	return kept
}

// AttemptAt is the role on an attempt's match at: Attempt, Failure in a status XLA raised, Dropped if foreign.
func AttemptAt(st *speaker.Attribution, at int) Role {
	return Of(Facts{Kind: AttemptLine, Foreign: st.Foreign(at), Raised: st.Raised(at)})
}

// WarningAt is the role on a warning family's match at position at.
func WarningAt(st *speaker.Attribution, at int) Role {
	return Of(Facts{Kind: WarningLine, Foreign: st.Foreign(at)})
}
