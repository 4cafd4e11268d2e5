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
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// compileTimeTPUTexts are the real compile-time TPU OOMs the package holds,
// chosen by where they come from rather than by the rule under test: the
// fixtures that expect a compile-time catalog code, the coverage rows and
// message files of the tpu-compile-* families, and those families' examples.
func compileTimeTPUTexts(t *testing.T) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for _, f := range fixtures {
		if f.want.code == grammar.CodeHbm || f.want.code == grammar.CodeVmem || f.want.code == grammar.CodeSparseCore {
			texts["fixture "+f.name] = f.body(t)
		}
	}
	rows, err := readClassification()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if strings.HasPrefix(row.verdict, "tpu-compile-") {
			texts["coverage "+row.id] = row.fixture
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "messages", "tpu-compile-*.txt"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[p] = string(data)
	}
	for i := range defaultRecognizer.Families {
		if f := &defaultRecognizer.Families[i]; strings.HasPrefix(f.ID, "tpu-compile-") {
			texts["example of "+f.ID] = f.Example
		}
	}
	return texts
}

// TestCompileTimeTPUOOMsAreFutile: every real compile-time TPU OOM is
// futile, and so is every variation of the tpu-compile bases in every
// status, wrapper, log header and error-code form (variations_test.go): the
// verdict follows the catalog code, not the wording around it.
func TestCompileTimeTPUOOMsAreFutile(t *testing.T) {
	texts := compileTimeTPUTexts(t)
	futile := 0
	for _, name := range slices.Sorted(maps.Keys(texts)) {
		r, ok := Recognize(texts[name])
		switch {
		case !ok:
			t.Errorf("%s: not recognised", name)
		case r.Retry != diagnosis.RetryFutile:
			t.Errorf("%s: retry %q (rule %q), want futile", name, r.Retry, diagnosis.Judge(&r, diagnosis.Facts{}).Rule)
		default:
			futile++
		}
	}
	if len(texts) < 40 {
		t.Errorf("only %d compile-time TPU texts: the corpus shrank", len(texts))
	}
	t.Logf("real compile-time TPU OOMs: %d of %d futile", futile, len(texts))

	variations, varFutile := 0, 0
	for _, bs := range bases {
		if !bs.tpu || (bs.want.code != grammar.CodeHbm && bs.want.code != grammar.CodeVmem && bs.want.code != grammar.CodeSparseCore) {
			continue
		}
		for _, text := range compileVariations(bs) {
			variations++
			if r, ok := Recognize(text); ok && r.Retry == diagnosis.RetryFutile {
				varFutile++
			} else {
				t.Errorf("%s: not futile: %q", bs.id, text)
			}
		}
	}
	t.Logf("variations: %d of %d futile", varFutile, variations)
}

// compileVariations puts a base message in every status, wrapper, header and
// code form.
func compileVariations(bs base) []string {
	var out []string
	for _, st := range statuses {
		for _, w := range wrappers {
			msg := st + bs.msg
			if w.ownStatus {
				msg = bs.msg
			}
			for _, h := range headers {
				out = append(out, h.prefix+w.prefix+msg)
			}
		}
	}
	for _, cf := range codeForms {
		out = append(out, "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: "+cf.wrap(bs, bs.msg))
	}
	return out
}

// TestRetryRulesReachable: every rule decides the verdict of at least one
// real message (adviceCorpus), so no row of the table is dead; and a rule
// that reads the refusals before a failure is reached by the real job logs
// too (jobs_test.go reads them whole).
func TestRetryRulesReachable(t *testing.T) {
	reached := map[string]string{}
	corpus := adviceCorpus(t)
	for _, name := range slices.Sorted(maps.Keys(corpus)) {
		text := corpus[name]
		r, ok := Recognize(text)
		if !ok {
			continue
		}
		d := diagnosis.Judge(&r, diagnosis.Facts{})
		if d.Verdict != diagnosis.RetryUnknown && reached[d.Rule] == "" {
			reached[d.Rule] = name
		}
		if r.Retry != d.Verdict {
			t.Errorf("%s: Report.Retry %q, Judge %q", name, r.Retry, d.Verdict)
		}
	}
	for _, rule := range diagnosis.RetryRules {
		if rule.Assembled {
			t.Logf("%-34s %-9s reached by whole failures (internal/assembly TestAssembledRulesReached)", rule.Name, rule.Verdict)
			continue
		}
		if reached[rule.Name] == "" {
			t.Errorf("rule %q: no real message reaches it", rule.Name)
		} else {
			t.Logf("%-34s %-9s e.g. %s", rule.Name, rule.Verdict, reached[rule.Name])
		}
	}
}

// TestRetryRefusalsBefore: refusals read before the failure (as xlaoom
// explain passes them) turn an unknown verdict to may_help, never a futile
// one: a request no device or pool can hold stays futile.
func TestRetryRefusalsBefore(t *testing.T) {
	bfc := readReal(t, "jit_temps.stderr.txt") // 69.85 GiB against a 59.38 GiB pool
	r, ok := Recognize(bfc)
	if !ok || r.Retry != diagnosis.RetryFutile {
		t.Fatalf("jit_temps: %v %q", ok, r.Retry)
	}
	if v := diagnosis.Judge(&r, diagnosis.Facts{Attempts: 11}).Verdict; v != diagnosis.RetryFutile {
		t.Errorf("jit_temps after 11 refusals: %q, want futile (larger than the pool)", v)
	}
	exhausted, ok := Recognize(`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 23.28GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error=''] [executable_name='jit_activations']`)
	if !ok {
		t.Fatal("the status of shared_gpu_backoff_then_oom is not recognised")
	}
	if exhausted.Retry != diagnosis.RetryUnknown || diagnosis.Judge(&exhausted, diagnosis.Facts{}).Verdict != diagnosis.RetryUnknown {
		t.Errorf("the status alone: %q, want unknown", exhausted.Retry)
	}
	if d := diagnosis.Judge(&exhausted, diagnosis.Facts{Attempts: 35}); d.Verdict != diagnosis.RetryMayHelp || d.Rule != "driver refused before the failure" {
		t.Errorf("after the 35 refusals of its log: %+v, want may_help", d)
	}
}

// TestNoVerdictOffFailures: look-alikes are not failures and warnings are
// not failures, so neither carries a verdict or an action.
func TestNoVerdictOffFailures(t *testing.T) {
	for _, l := range append(slices.Clone(lookalikes), coverageLookalikes()...) {
		if f := Default().Find(l.text, true); f.Found == FoundReport {
			t.Errorf("look-alike %s/%s found as a failure (retry %q)", l.class, l.name, f.Report.Retry)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "negative", "*.txt"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if f := Default().Find(string(data), true); f.Found == FoundReport {
			t.Errorf("%s found as a failure (retry %q)", p, f.Report.Retry)
		}
	}
}
