// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// The coverage table (testdata/coverage/templates.tsv, written by
// scripts/coveragetable from the source of XLA, jaxlib and PyTorch/XLA, plus
// older wordings) lists every OOM-like template the stack can print.
// classification.tsv, kept by hand, says what each one is:
//
//	id <TAB> verdict <TAB> expected fields <TAB> fixture
//
// verdict is a family id, "generic" (the last-resort layer, FamilyGeneric) or
// "lookalike: <reason>". The expected fields ("requested=1073741824
// device=0") are every value the fixture prints, sizes in bytes. The fixture
// is the template filled with realistic values in the wrapper it really
// appears in, with \n, \t and \\ escapes. "unrecognised: <reason>" records
// a memory failure nothing recognises yet (the test fails once something
// does, so the row gets its family).

var coverageDir = filepath.Join("testdata", "coverage")

type coverageRow struct {
	id, verdict, expect, fixture string
}

func readCoverageIDs(t testing.TB) []string {
	data, err := os.ReadFile(filepath.Join(coverageDir, "templates.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			ids = append(ids, strings.SplitN(l, "\t", 2)[0])
		}
	}
	return ids
}

func readClassification() ([]coverageRow, error) {
	data, err := os.ReadFile(filepath.Join(coverageDir, "classification.tsv"))
	if err != nil {
		return nil, err
	}
	var rows []coverageRow
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.SplitN(l, "\t", 4)
		for len(f) < 4 {
			f = append(f, "")
		}
		rows = append(rows, coverageRow{f[0], f[1], f[2], unescapeFixture(f[3])})
	}
	return rows, nil
}

func unescapeFixture(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t").Replace(s)
}

func isLookalikeVerdict(v string) bool { return strings.HasPrefix(v, "lookalike:") }

// coverageLookalikes are the look-alike fixtures of the table, added to
// lookalikes (negatives_test.go) so every negative check covers them.
func coverageLookalikes() []lookalike {
	rows, err := readClassification()
	if err != nil {
		panic(err)
	}
	var out []lookalike
	for _, r := range rows {
		if isLookalikeVerdict(r.verdict) && r.fixture != "" {
			out = append(out, lookalike{class: "source-template", name: r.id, text: r.fixture})
		}
	}
	return out
}

func init() { lookalikes = append(lookalikes, coverageLookalikes()...) }

func TestCoverageTable(t *testing.T) {
	rows, err := readClassification()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]coverageRow{}
	for _, r := range rows {
		if _, dup := byID[r.id]; dup {
			t.Errorf("%s: classified twice", r.id)
		}
		byID[r.id] = r
	}
	ids := readCoverageIDs(t)
	for _, id := range ids {
		r, ok := byID[id]
		switch {
		case !ok || r.verdict == "":
			t.Errorf("%s: no classification: add a row to classification.tsv (family id, generic or lookalike: reason)", id)
			continue
		case r.fixture == "":
			t.Errorf("%s: no fixture", id)
			continue
		}
		t.Run(id, func(t *testing.T) { checkCoverageRow(t, r) })
	}
	for _, r := range rows {
		if !slices.Contains(ids, r.id) {
			t.Errorf("%s: classified but not in templates.tsv (stale row)", r.id)
		}
	}
}

func checkCoverageRow(t *testing.T, row coverageRow) {
	rep, recognised := Recognize(row.fixture)
	if isLookalikeVerdict(row.verdict) {
		if recognised {
			t.Errorf("look-alike (%s) tagged as %s", row.verdict, rep.Family)
		}
		return
	}
	if strings.HasPrefix(row.verdict, "unrecognised:") {
		if recognised {
			t.Errorf("recognised as %s now: classify it as that family", rep.Family)
		}
		if r, ok := defaultRecognizer.recognizeUnfiltered(row.fixture); ok {
			t.Errorf("MayContain rejects what %s reads: add a cue", r.Family)
		}
		return // a known gap, listed in docs/xla-coverage.md
	}
	if !MayContain(row.fixture) {
		t.Error("MayContain rejects the fixture")
	}
	isFailure, isWarning := familyKindOf(row.verdict)
	if !isFailure && !isWarning && row.verdict != generic.FamilyGeneric {
		t.Fatalf("verdict %q is no family", row.verdict)
	}
	if isWarning {
		w, ok := RecognizeWarning(row.fixture)
		if !ok || w.Family != row.verdict {
			t.Fatalf("RecognizeWarning = %q, %v; want warning family %s", w.Family, ok, row.verdict)
		}
		if recognised {
			t.Fatalf("a warning fixture recognised as OOM %s", rep.Family)
		}
		checkExpected(t, row.expect, grammar.Report{Requested: w.Requested, Used: w.Used, Free: w.Free, Capacity: w.Capacity, Device: w.Device, Backend: w.Backend})
		return
	}
	if !recognised || rep.Family != row.verdict {
		t.Fatalf("recognised = %v as %q, want family %s", recognised, rep.Family, row.verdict)
	}
	checkExpected(t, row.expect, rep)
	// What str(e) prints: the message without the exception's class.
	if msg := exceptionClass.ReplaceAllString(row.fixture, ""); msg != row.fixture {
		r, ok := Recognize(msg)
		if !ok || r.Family != row.verdict {
			t.Fatalf("the message alone %q: recognised = %v as %q, want family %s", msg, ok, r.Family, row.verdict)
		}
		checkExpected(t, row.expect, r)
	}
}

// familyKindOf tells whether id is a failure family or a warning family.
func familyKindOf(id string) (failure, warning bool) {
	for _, g := range families.FailureGroups {
		for _, f := range g {
			failure = failure || f.ID == id
		}
	}
	for _, g := range families.WarningGroups {
		for _, f := range g {
			warning = warning || f.ID == id
		}
	}
	return failure, warning
}

// checkExpected compares the fields a row expects; every size the report
// knows must be expected, so a size read into the wrong field fails.
func checkExpected(t *testing.T, expect string, r grammar.Report) {
	t.Helper()
	sizes := map[string]grammar.Size{
		"requested": r.Requested, "free": r.Free, "used": r.Used, "capacity": r.Capacity, "exceeded": r.Exceeded,
		"reserved": r.Reserved, "reservable": r.Reservable, "poollimit": r.PoolLimit,
	}
	strs := map[string]string{"device": r.Device, "space": r.MemorySpace, "program": r.Program, "backend": r.Backend, "instruction": r.Instruction}
	want := map[string]string{}
	for _, kv := range strings.Fields(expect) {
		k, v, _ := strings.Cut(kv, "=")
		want[k] = v
	}
	for name, s := range sizes {
		v, expected := want[name]
		switch {
		case !expected && s.Known:
			t.Errorf("%s = %d, not expected", name, s.Bytes)
		case expected:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || !s.Known || s.Bytes != n {
				t.Errorf("%s = %+v, want %s bytes", name, s, v)
			}
		}
	}
	for k, v := range want {
		if _, isSize := sizes[k]; isSize {
			continue
		}
		got, known := strs[k]
		if !known {
			t.Errorf("unknown expected field %q", k)
		} else if got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// sizeToken is a size as templates print it: a number with a byte unit or
// "bytes", or a bare number of five digits or more (raw byte counts).
var sizeToken = regexp.MustCompile(`(\d+(?:\.\d+)?) ?([KMGTPE]i?B\b|[KMGTPE]\b|B\b|bytes\b)|\b\d{5,}\b`)

// sizesNotFields are the sizes coverage fixtures print that no field holds,
// "id/size as printed", each with why.
var sizesNotFields = map[string]string{
	"xla-5b82f490/64 GB":              "the default XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB the message suggests raising, not this failure's figure",
	"xla-1938a39c/64 GB":              "the default XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB the message suggests raising, not this failure's figure",
	"xla-cd8d2c2d/0B":                 "a line of the BufferAssignment breakdown, read into the breakdown",
	"xla-be3ae1ea/1.00GiB":            "a line of the BufferAssignment breakdown, read into the breakdown",
	"xla-ae82df51/33554432":           "a bare number after \"of size:\": the last-resort layer takes a size only with its unit",
	"tensorflow-2e739f37/68719476736": "it ends the text, so it may be cut short there: left unset (truncation.go)",
	"xla-4eecc0f6/68719476736":        "it ends the text, so it may be cut short there: left unset (truncation.go)",
	"xla-b5788ddc/8589934592":         "it ends the text, so it may be cut short there: left unset (truncation.go)",
	"tensorflow-32741c32/500001":      "a shape's dimension: with no dtype printed, the tensor's size is unknown",
	"tensorflow-ccf1a67b/500001":      "a shape's dimension: with no dtype printed, the tensor's size is unknown",
}

// TestCoverageSizesLand: every size a recognised fixture prints (log
// headers aside) is the value of one of the record's size fields, exact or
// as rounded when printed, unless sizesNotFields says why not.
func TestCoverageSizesLand(t *testing.T) {
	rows, err := readClassification()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, row := range rows {
		if isLookalikeVerdict(row.verdict) || strings.HasPrefix(row.verdict, "unrecognised:") {
			continue
		}
		r, ok := Recognize(row.fixture)
		if !ok {
			w, _ := RecognizeWarning(row.fixture)
			r = grammar.Report{Requested: w.Requested, Used: w.Used, Free: w.Free, Capacity: w.Capacity}
		}
		var have []int64
		for _, s := range []grammar.Size{r.Requested, r.Free, r.Used, r.Capacity, r.Exceeded, r.Reserved, r.Reservable, r.PoolLimit} {
			if s.Known {
				have = append(have, s.Bytes)
			}
		}
		for _, m := range sizeToken.FindAllStringSubmatch(defaultRecognizer.wrapWords.Flatten(row.fixture), -1) {
			tok := m[0]
			if m[1] != "" {
				tok = m[1]
				if m[2] != "bytes" {
					tok += m[2]
				}
			}
			size := grammar.ParseSizeToken(tok)
			if !size.Known || slices.ContainsFunc(have, func(h int64) bool { return roughlyEqual(h, size.Bytes) }) {
				continue
			}
			key := row.id + "/" + m[0]
			if _, known := sizesNotFields[key]; known {
				used[key] = true
				continue
			}
			t.Errorf("%s: %q is in no field (%s)", row.id, m[0], row.fixture)
		}
	}
	for key := range sizesNotFields {
		if !used[key] {
			t.Errorf("%s: lands in a field now: drop it from sizesNotFields", key)
		}
	}
}

// roughlyEqual: a field holds the exact bytes, a message may print them
// rounded ("1.97GiB").
func roughlyEqual(field, printed int64) bool {
	d := field - printed
	if d < 0 {
		d = -d
	}
	return d*100 <= field
}
