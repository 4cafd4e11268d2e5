// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/explain"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// TestJobsDecideAsExplain: on every failed job of oom/testdata/jobs, `xlaoom
// run` decides by the verdict, rule and action `xlaoom explain` gives the
// failure (the processor's, by TestOnePath), and exits by it.
func TestJobsDecideAsExplain(t *testing.T) {
	raw, err := os.ReadFile(capture("jobs", "jobs-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Jobs map[string]struct {
			Log    string `json:"log"`
			Failed bool   `json:"failed"`
		}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for name, job := range m.Jobs {
		if !job.Failed {
			continue
		}
		t.Run(name, func(t *testing.T) {
			path := capture("jobs", job.Log)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			found, err := explain.LastFailure(filepath.Base(path), f, nil)
			if err != nil || found == nil || found.Whole == nil {
				t.Fatalf("explain: %v, %v", found, err)
			}
			d := found.Whole.Decision
			w := runWrapped(t, path, failWithCapture)
			want := map[string]int{oom.RetryFutile: DefaultFutileExit, oom.RetryMayHelp: DefaultMayHelpExit, oom.RetryUnknown: 1}[d.Verdict]
			if w.status != want {
				t.Errorf("exit %d, want %d for %s: %s", w.status, want, d.Verdict, w.lastLine())
			}
			rule := "rule: " + d.Rule
			if d.Missing != "" {
				rule = "rule " + d.Rule + " lacks "
			}
			said := map[string]string{oom.RetryFutile: "is futile", oom.RetryMayHelp: "may pass on a rerun", oom.RetryUnknown: "unknown"}[d.Verdict]
			for _, s := range []string{said, rule, "action " + found.Whole.Report.Action} {
				if !strings.Contains(w.lastLine(), s) {
					t.Errorf("the decision %q does not say %q", w.lastLine(), s)
				}
			}
		})
	}
}
