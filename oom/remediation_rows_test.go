// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/diagnosis"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// adviceCorpus is every real message the package holds: the fixtures, the
// raw captures, the message files, the failed jobs' whole logs and each
// family's example.
func adviceCorpus(t *testing.T) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for _, f := range fixtures {
		texts["fixture "+f.name] = f.body(t)
	}
	for _, c := range genericCases {
		texts["generic "+c.name] = c.text
	}
	for _, dir := range []string{realDir, filepath.Join("testdata", "messages"), filepath.Join("testdata", "allocator_dump")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no texts in %s (%v)", dir, err)
		}
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			texts[p] = string(data)
		}
	}
	// The whole job logs: a failure after the driver's refusals on the way.
	jobs, err := filepath.Glob(filepath.Join(jobsDir, "*_oom.log"))
	if err != nil || len(jobs) == 0 {
		t.Fatalf("no job logs (%v)", err)
	}
	for _, p := range jobs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[p] = string(data)
	}
	for i := range defaultRecognizer.Families {
		f := &defaultRecognizer.Families[i]
		texts["example of "+f.ID] = f.Example
	}
	texts["case TPU donation"] = donationText
	// A truncated E0100 status: the cause is not read.
	texts["case E0100 without its message"] = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure:"
	// The ROCm buffer assignment with a third of it lost to fragmentation
	// (printed: 9.71GiB, 5.03%).
	rocm := texts[filepath.Join("testdata", "messages", "gpu-platform-allocator_rocm_driver_then_status.txt")]
	frag := strings.Replace(rocm, "total fragmentation:    9.71GiB (5.03%)", "total fragmentation:   64.28GiB (33.33%)", 1)
	if frag == rocm {
		t.Fatal("the ROCm message no longer prints its fragmentation as expected")
	}
	texts["case ROCm buffer assignment, fragmented"] = frag
	return texts
}

// adviceTables lists every table a report's advice is read from.
func adviceTables() map[string]diagnosis.AdviceTable {
	tables := map[string]diagnosis.AdviceTable{"breakdown": diagnosis.BreakdownAdvice, "generic": diagnosis.GenericAdviceTable}
	for _, t := range diagnosis.CodeAdvice {
		tables[t.Name] = t.Table
	}
	return tables
}

// TestAdviceRowsReachable: every row of every advice table gives a step to
// at least one real message, and the steps it gives are what that message's
// report carries, so a row no message can reach (a dead row) fails here.
// The rows that place a family's lead step and note are reached with the
// family traits of the fixtures, and also with a lead and a note added to
// each fixture's family: they say where any family's steps go, also in a
// table whose families have none today.
func TestAdviceRowsReachable(t *testing.T) {
	type key struct{ table, row string }
	reached := map[key]string{}         // the first message that reaches each row
	withFamilySteps := map[key]string{} // the same, with a lead and a note added
	corpus := adviceCorpus(t)
	names := slices.Sorted(maps.Keys(corpus))
	for _, name := range names {
		text := corpus[name]
		r, ok := Recognize(text)
		if !ok {
			continue
		}
		var info logtext.InfoLines
		flat := defaultRecognizer.wrapWords.FlattenLevels(text, &info, nil, nil)
		traits, own := adviceTraitsOf(r.Family)
		if own && r.Family != generic.FamilyGeneric {
			continue // a family's own advice is not a table
		}
		seen := func(table string, row *diagnosis.AdviceRow, steps []string) {
			if len(steps) == 0 {
				t.Errorf("%s: row %q of %q holds but gives no step", name, row.Name, table)
			}
			for _, s := range steps {
				if !slices.Contains(r.Remediation, s) {
					t.Errorf("%s: row %q of %q gives %q, not in the report's advice", name, row.Name, table, s)
				}
			}
			if _, ok := reached[key{table, row.Name}]; !ok {
				reached[key{table, row.Name}] = name
			}
		}
		c := diagnosis.AdviceCase{R: &r, Flat: flat, Traits: traits}
		var got []string
		if r.Family == generic.FamilyGeneric {
			got = diagnosis.GenericAdviceTable.Walk("generic", c, seen)
		} else {
			got = diagnosis.AdviseSeen(c, seen)
		}
		if !slices.Equal(got, r.Remediation) {
			t.Fatalf("%s: the tables walked here give other advice than Recognize:\n%q\n%q", name, got, r.Remediation)
		}
		if r.Family == generic.FamilyGeneric {
			continue
		}
		// Any family may bring a lead step and a note.
		c.Traits.Lead = func(*grammar.Report) string { return "test lead" }
		c.Traits.Note = "test note"
		diagnosis.AdviseSeen(c, func(table string, row *diagnosis.AdviceRow, _ []string) {
			if row.Name == diagnosis.LeadRow.Name || row.Name == diagnosis.NoteRow.Name {
				if _, ok := withFamilySteps[key{table, row.Name}]; !ok {
					withFamilySteps[key{table, row.Name}] = name + " (with a family lead and note)"
				}
			}
		})
	}
	for k, by := range withFamilySteps {
		if _, ok := reached[k]; !ok {
			reached[k] = by
		}
	}
	tables := adviceTables()
	for _, table := range slices.Sorted(maps.Keys(tables)) {
		rows := tables[table]
		names := map[string]bool{}
		for _, row := range rows {
			if names[row.Name] {
				t.Errorf("table %q: row name %q twice", table, row.Name)
			}
			names[row.Name] = true
			if row.When == nil || (row.Say == nil) == (row.SayEach == nil) {
				t.Errorf("table %q, row %q: needs a condition and exactly one of say, sayEach", table, row.Name)
			}
			if by, ok := reached[key{table, row.Name}]; ok {
				t.Logf("%-34s %-34s %s", table, row.Name, by)
			} else {
				t.Errorf("table %q, row %q: no message reaches it", table, row.Name)
			}
		}
	}
}

// adviceTraitsOf returns the advice traits of the family id, and whether
// the family's advice is its own rather than the tables'.
func adviceTraitsOf(id string) (grammar.AdviceTraits, bool) {
	if id == generic.FamilyGeneric {
		return grammar.AdviceTraits{Own: diagnosis.GenericAdvice}, true
	}
	for i := range defaultRecognizer.Families {
		if f := &defaultRecognizer.Families[i]; f.ID == id {
			return f.Advice, f.Advice.Own != nil
		}
	}
	return grammar.AdviceTraits{}, false // a bare catalog code
}

func TestAdviceTablesCoverEveryCode(t *testing.T) {
	if last := diagnosis.CodeAdvice[len(diagnosis.CodeAdvice)-1]; !last.When(diagnosis.AdviceCase{R: &grammar.Report{}}) {
		t.Errorf("the last table (%s) must take every other report", last.Name)
	}
}
