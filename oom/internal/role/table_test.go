// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package role

import "testing"

// TestTableIsComplete: every statement a record can hold gets a role
// from a row (none falls through to Of's default), and every row is the
// first to hold for some statement (none is dead).
func TestTableIsComplete(t *testing.T) {
	used := make([]bool, len(Table))
	for _, s := range allStatements() {
		first := -1
		for i := range Table {
			if Table[i].holds(s) {
				first = i
				break
			}
		}
		if first < 0 {
			t.Errorf("no row decides %+v", s)
			continue
		}
		used[first] = true
	}
	for i, u := range used {
		if !u {
			t.Errorf("row %d (%s, %s) decides nothing: an earlier row covers it", i, Table[i].Kind, Table[i].Why)
		}
	}
}

// TestTableRules: the rules the table states, whatever else holds.
func TestTableRules(t *testing.T) {
	for _, s := range allStatements() {
		v := Of(s)
		switch {
		case s.Foreign && v != Dropped:
			t.Errorf("%+v: another program's statement, yet %s", s, v)
		case s.Foreign:
		case s.Kind == AttemptLine && !s.Raised && v != Attempt, s.Kind == WarningLine && v != Warning:
			t.Errorf("%+v: %s", s, v)
		case s.Kind == AttemptLine && s.Raised && v != Failure:
			t.Errorf("%+v: a refusal XLA raised, yet %s", s, v)
		case (s.Kind == Status || s.Kind == LogLine) && s.Guarded && v != Dropped:
			t.Errorf("%+v: guarded, yet %s", s, v)
		}
	}
}

func allStatements() []Facts {
	var out []Facts
	for k := Status; k <= LastResort; k++ {
		for b := 0; b < 32; b++ {
			out = append(out, Facts{Kind: k, Foreign: b&1 != 0, Raised: b&2 != 0, Guarded: b&4 != 0, AtInfo: b&8 != 0, BesideAttempt: b&16 != 0})
		}
	}
	return out
}
