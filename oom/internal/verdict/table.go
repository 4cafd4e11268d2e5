// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package verdict

// Verdict is what one statement is for its record.
type Verdict uint8

const (
	// Dropped is not a statement of an out-of-memory failure here: another
	// program's, a fallback, a retry the runtime survives, a refusal beside
	// an attempt.
	Dropped Verdict = iota
	// Failure is the failure. When a record holds several, the earliest is
	// it and the others lend it their details.
	Failure
	// FailureUnlessStatus is the failure only when no statement of the
	// record is a Failure; otherwise it lends its details to that one.
	FailureUnlessStatus
	// Attempt is an allocation attempt, a request the driver refused and an
	// allocator retries. Counted in a failure's record (xla.oom.attempts),
	// a warning in a record without one; never the failure.
	Attempt
	// Warning is memory pressure while the program goes on; never a failure.
	Warning
)

var verdictNames = [...]string{"dropped", "failure", "failure unless a status", "attempt", "warning"}

// String names v for the tests and the docs.
func (v Verdict) String() string { return verdictNames[v] }

// Kind is what the grammar made of a statement.
type Kind uint8

const (
	// AnyKind in a row holds for a statement of every kind.
	AnyKind Kind = iota
	// Status is a failure family's returned status (grammar.Fatal).
	Status
	// LogLine is a failure family's allocator or driver log line
	// (grammar.LogOnly).
	LogLine
	// AttemptLine is an allocation attempt family's driver refusal.
	AttemptLine
	// WarningLine is a memory-pressure warning family's line.
	WarningLine
	// CodeToken is a catalog OOM code printed in the text ("E1000:
	// CompileTimeHbmOom:", a doc URL).
	CodeToken
	// LastResort is a statement of the last-resort layer, which no family
	// knows (its own rules say which statements state a failure).
	LastResort
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

// Statement is what the verdict reads of one statement of a record.
type Statement struct {
	Kind Kind
	// Foreign: another program printed it (package speaker: CuPy, PyTorch,
	// a database, ...).
	Foreign bool
	// Raised: it is a status XLA's stack raised (a JAX, TensorFlow,
	// PyTorch/XLA or XLA exception).
	Raised bool
	// Guarded: a guard phrase stands before it in its sentence (an
	// autotuner falling back to another algorithm, JAX's start-up warning).
	Guarded bool
	// AtInfo: it was logged at INFO level.
	AtInfo bool
	// BesideAttempt: its log entry holds an allocation attempt.
	BesideAttempt bool
}

// Row is one line of the table.
type Row struct {
	Kind                                     Kind
	Foreign, Raised, Guarded, AtInfo, Beside Is
	Verdict                                  Verdict
	Why                                      string
}

func (r *Row) holds(s Statement) bool {
	return (r.Kind == AnyKind || r.Kind == s.Kind) && r.Foreign.holds(s.Foreign) && r.Raised.holds(s.Raised) &&
		r.Guarded.holds(s.Guarded) && r.AtInfo.holds(s.AtInfo) && r.Beside.holds(s.BesideAttempt)
}

// Table decides every statement of a record, row by row: the first row
// that holds gives its verdict. It is the one place that says what is a
// failure, an attempt, a warning or nothing (TestTableIsComplete checks that
// every statement gets a verdict and every row decides one). The speaker
// decides before the words: the first row.
var Table = []Row{
	// kind      foreign raised guarded at INFO beside an attempt
	{AnyKind, Yes, Any, Any, Any, Any, Dropped, "another program's statement: never XLA's, whatever it says"},
	{Status, No, Any, Yes, Any, Any, Dropped, "a guard phrase before it in its sentence: a fallback or a start-up warning"},
	{Status, No, Any, No, Any, Any, Failure, "a returned status: what the program fails with"},
	{LogLine, No, Any, Yes, Any, Any, Dropped, "a guard phrase before it in its sentence: a fallback or a start-up warning"},
	{LogLine, No, Any, No, Yes, Any, Dropped, "an allocator or driver line at INFO: a retry the runtime survives"},
	{LogLine, No, Any, No, No, Any, FailureUnlessStatus, "an allocator or driver line: the failure when the record holds no status"},
	{AttemptLine, No, Yes, Any, Any, Any, Failure, "a refusal inside a status XLA's stack raised: the program raised it"},
	{AttemptLine, No, No, Any, Any, Any, Attempt, "a driver refusal an allocator retries"},
	{WarningLine, No, Any, Any, Any, Any, Warning, "memory pressure while the program goes on"},
	{CodeToken, No, Any, Any, Any, Any, Failure, "a catalog OOM code: the failure's code; alone, the failure"},
	{LastResort, No, Any, Any, Any, Yes, Dropped, "a refusal in an entry with an allocation attempt, at ERROR too, is the attempt's"},
	{LastResort, No, Any, Any, Any, No, Failure, "a memory failure no family knows, in an error context"},
}

// Of returns the verdict of s: the first row of Table that holds, Dropped
// when none does.
func Of(s Statement) Verdict {
	for i := range Table {
		if Table[i].holds(s) {
			return Table[i].Verdict
		}
	}
	return Dropped
}
