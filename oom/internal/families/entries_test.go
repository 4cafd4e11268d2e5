// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// failureEntry returns the failure entry id, compiled.
func failureEntry(t *testing.T, id string) *grammar.Family {
	t.Helper()
	for _, g := range FailureGroups {
		for _, f := range g {
			if f.ID == id {
				f.Pattern = grammar.CompilePattern(f.ID, f.Anchor, f.Expr, f.Span)
				return &f
			}
		}
	}
	t.Fatalf("no failure family %q", id)
	return nil
}

// warningEntry returns the warning entry id, compiled.
func warningEntry(t *testing.T, id string) *grammar.WarningFamily {
	t.Helper()
	for _, g := range WarningGroups {
		for _, w := range g {
			if w.ID == id {
				w.Pattern = grammar.CompilePattern(w.ID, w.Anchor, w.Expr, w.Span)
				return &w
			}
		}
	}
	t.Fatalf("no warning family %q", id)
	return nil
}

// readEntry is what one entry alone reads of text, as the recogniser runs
// it: the first match its Read accepts, read into a report seeded with the
// entry's code, phase and backend.
func readEntry(p *grammar.Pattern, read func(*grammar.Report, grammar.Match) bool, seed grammar.Report, text string) (grammar.Report, bool) {
	var got grammar.Report
	found := false
	p.Each(logtext.WrapVocabulary(nil).Flatten(text), func(m grammar.Match) {
		if found {
			return
		}
		r := seed
		grammar.ReadStandardGroups(&r, m)
		if read == nil || read(&r, m) {
			got, found = r, true
		}
	})
	return got, found
}

func readFailure(f *grammar.Family, text string) (grammar.Report, bool) {
	return readEntry(&f.Pattern, f.Read, grammar.Report{Family: f.ID, Code: f.Code, Phase: f.Phase, Backend: f.Backend}, text)
}

func readWarning(w *grammar.WarningFamily, text string) (grammar.Report, bool) {
	return readEntry(&w.Pattern, w.Read, grammar.Report{Family: w.ID, Phase: w.Phase, Backend: w.Backend}, text)
}

// fields is what a test compares of a report: the classification, the
// names and every size a family may read.
type fields struct {
	code, backend, space, device, instr                       string
	req, free, used, capacity, exceeded, reserved, reservable grammar.Size
	pool                                                      grammar.Size
	words                                                     grammar.SparseCoreWords
}

func fieldsOf(r *grammar.Report) fields {
	return fields{r.Code, r.Backend, r.MemorySpace, r.Device, r.Instruction,
		r.Requested, r.Free, r.Used, r.Capacity, r.Exceeded, r.Reserved, r.Reservable, r.PoolLimit, r.Words}
}

// b is a known size in bytes.
func b(n int64) grammar.Size { return grammar.KnownSize(n) }

// TestEntryIDsAreUnique: a report names its family by id alone.
func TestEntryIDsAreUnique(t *testing.T) {
	seen := map[string]bool{grammar.FamilyCodeOnly: true}
	check := func(id string) {
		if seen[id] {
			t.Errorf("duplicate family id %q", id)
		}
		seen[id] = true
	}
	for _, g := range FailureGroups {
		for _, f := range g {
			check(f.ID)
			if f.Kind == 0 || f.Code == "" || f.Phase == "" || f.Example == "" {
				t.Errorf("%s: an entry needs a kind, a code, a phase and an example", f.ID)
			}
			if _, ok := grammar.LookupCode(f.Code); !ok {
				t.Errorf("%s: code %s is not in the catalog", f.ID, f.Code)
			}
		}
	}
	for _, g := range WarningGroups {
		for _, w := range g {
			check(w.ID)
			if w.Attempt != (w.Kind == grammar.WarningAllocationAttempt) || w.Phase != grammar.WarningPhase(w.Kind) {
				t.Errorf("%s: kind %q, attempt %v, phase %q disagree", w.ID, w.Kind, w.Attempt, w.Phase)
			}
		}
	}
}

// TestComputedLeads pins the computed distance between a message's start
// and its anchor for the families whose anchor is not their first word.
func TestComputedLeads(t *testing.T) {
	for id, want := range map[string]struct {
		lead  int
		fixed bool
	}{
		"tpu-compile-hbm-used":          {len("Ran out of memor"), true},
		"gpu-platform-allocator":        {len("Failed to allocate re"), true},
		"gpu-compile-autotuner":         {len("RESOURCE_EXHAUSTED: "), true},
		"tpu-runtime-buffer":            {0, true},
		"tpu-compile-sparsecore-offset": {len("current allocation offset upper bound (") + grammar.MaxLeadToken + len(" "), false},
	} {
		if f := failureEntry(t, id); f.Lead != want.lead || f.FixedLead != want.fixed {
			t.Errorf("%s: lead %d fixed %v, want %d %v", id, f.Lead, f.FixedLead, want.lead, want.fixed)
		}
	}
}
