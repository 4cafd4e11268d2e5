// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"maps"
	"slices"
	"testing"
)

func actionKinds() map[string]bool {
	kinds := map[string]bool{}
	for _, a := range Actions {
		kinds[a.Name] = true
	}
	return kinds
}

// TestEveryAdviceHasAnAction: every row of every advice table carries an
// action kind of the enum (or reads one: a family's lead or note), and every
// family whose advice is its own, or that adds a lead or a note, says the
// kind of it.
func TestEveryAdviceHasAnAction(t *testing.T) {
	kinds := actionKinds()
	if len(Actions) > 12 || len(kinds) != len(Actions) {
		t.Fatalf("%d action kinds (%d distinct): at most 12, each once", len(Actions), len(kinds))
	}
	for table, rows := range adviceTables() {
		for i := range rows {
			row := &rows[i]
			switch {
			case row.actionOf != nil && row.action != "":
				t.Errorf("%s / %s: both an action and actionOf", table, row.name)
			case row.actionOf == nil && !kinds[row.action]:
				t.Errorf("%s / %s: action %q is not a kind of Actions", table, row.name, row.action)
			}
		}
	}
	for i := range defaultRecognizer.families {
		f := &defaultRecognizer.families[i]
		a := f.advice
		if a.own != nil && a.ownAction == nil {
			t.Errorf("family %s: own advice without ownAction", f.id)
		}
		if a.lead != nil && !kinds[a.leadAction] {
			t.Errorf("family %s: lead step of kind %q", f.id, a.leadAction)
		}
		if a.note != "" && !kinds[a.noteAction] {
			t.Errorf("family %s: note of kind %q", f.id, a.noteAction)
		}
	}
}

// TestActionIsTheFirstStepsKind: on every real message the action is a kind
// of the enum and that of the row that gave the first step; every kind is
// the first step's of at least one real message.
func TestActionIsTheFirstStepsKind(t *testing.T) {
	kinds := actionKinds()
	reached := map[string]string{}
	corpus := adviceCorpus(t)
	for _, name := range slices.Sorted(maps.Keys(corpus)) {
		r, ok := Recognize(corpus[name])
		if !ok {
			continue
		}
		if !kinds[r.Action] {
			t.Errorf("%s: action %q is not a kind of Actions", name, r.Action)
			continue
		}
		if reached[r.Action] == "" {
			reached[r.Action] = name
		}
		if own := familyOwnAdvice(r.Family); own {
			continue
		}
		var first *adviceRow
		c := adviceCase{r: &r, flat: corpus[name], traits: familyTraits(r.Family)}
		adviseSeen(c, func(_ string, row *adviceRow, steps []string) {
			if first == nil && len(steps) > 0 {
				first = row
			}
		})
		if first != nil && actionOfRow(first, c) != r.Action {
			t.Errorf("%s: action %q, first row %q gives %q", name, r.Action, first.name, actionOfRow(first, c))
		}
	}
	for _, a := range Actions {
		if reached[a.Name] == "" {
			t.Errorf("action %q: no real message's first step is of this kind", a.Name)
		} else {
			t.Logf("%-18s e.g. %s", a.Name, reached[a.Name])
		}
	}
}

// familyTraits returns the advice traits of the family with id ("" for
// none, as for a bare code).
func familyTraits(id string) adviceTraits {
	for i := range defaultRecognizer.families {
		if f := &defaultRecognizer.families[i]; f.id == id {
			return f.advice
		}
	}
	return adviceTraits{}
}

func familyOwnAdvice(id string) bool {
	return id == FamilyGeneric || familyTraits(id).own != nil
}
