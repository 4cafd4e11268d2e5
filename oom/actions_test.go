// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"maps"
	"slices"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/diagnosis"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

func actionKinds() map[string]bool {
	kinds := map[string]bool{}
	for _, a := range grammar.Actions {
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
	if len(grammar.Actions) > 12 || len(kinds) != len(grammar.Actions) {
		t.Fatalf("%d action kinds (%d distinct): at most 12, each once", len(grammar.Actions), len(kinds))
	}
	for table, rows := range adviceTables() {
		for i := range rows {
			row := &rows[i]
			switch {
			case row.ActionOf != nil && row.Action != "":
				t.Errorf("%s / %s: both an action and actionOf", table, row.Name)
			case row.ActionOf == nil && !kinds[row.Action]:
				t.Errorf("%s / %s: action %q is not a kind of Actions", table, row.Name, row.Action)
			}
		}
	}
	for i := range defaultRecognizer.Families {
		f := &defaultRecognizer.Families[i]
		a := f.Advice
		if a.Own != nil && a.OwnAction == nil {
			t.Errorf("family %s: own advice without ownAction", f.ID)
		}
		if a.Lead != nil && !kinds[a.LeadAction] {
			t.Errorf("family %s: lead step of kind %q", f.ID, a.LeadAction)
		}
		if a.Note != "" && !kinds[a.NoteAction] {
			t.Errorf("family %s: note of kind %q", f.ID, a.NoteAction)
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
		var first *diagnosis.AdviceRow
		c := diagnosis.AdviceCase{R: &r, Flat: corpus[name], Traits: familyTraits(r.Family)}
		diagnosis.AdviseSeen(c, func(_ string, row *diagnosis.AdviceRow, steps []string) {
			if first == nil && len(steps) > 0 {
				first = row
			}
		})
		if first != nil && diagnosis.ActionOfRow(first, c) != r.Action {
			t.Errorf("%s: action %q, first row %q gives %q", name, r.Action, first.Name, diagnosis.ActionOfRow(first, c))
		}
	}
	for _, a := range grammar.Actions {
		if reached[a.Name] == "" {
			t.Errorf("action %q: no real message's first step is of this kind", a.Name)
		} else {
			t.Logf("%-18s e.g. %s", a.Name, reached[a.Name])
		}
	}
}

// familyTraits returns the advice traits of the family with id ("" for
// none, as for a bare code).
func familyTraits(id string) grammar.AdviceTraits {
	for i := range defaultRecognizer.Families {
		if f := &defaultRecognizer.Families[i]; f.ID == id {
			return f.Advice
		}
	}
	return grammar.AdviceTraits{}
}

func familyOwnAdvice(id string) bool {
	return id == generic.FamilyGeneric || familyTraits(id).Own != nil
}
