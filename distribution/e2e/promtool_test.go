// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// promtools returns the promtool next to every Prometheus the alerting tests
// use (see prometheusServers), or the one on PATH.
func promtools(t *testing.T) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if _, err := os.Stat(p); err == nil && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if env := os.Getenv("XLAOOM_E2E_PROMETHEUS"); env != "" {
		for _, b := range filepath.SplitList(env) {
			add(filepath.Join(filepath.Dir(b), "promtool"))
		}
	} else {
		if p, err := exec.LookPath("promtool"); err == nil {
			add(p)
		}
		if p, err := filepath.Abs(filepath.Join(distDir, "..", "out", "tools", "prometheus3", "promtool")); err == nil {
			add(p)
		}
	}
	if len(out) == 0 {
		t.Skip("promtool is not installed: apt-get install -y prometheus (Debian/Ubuntu), or make install-prometheus3 (scripts/install-prometheus3.sh, Go only); .ci/run installs it")
	}
	return out
}

// TestAlertRulesPromtool checks the shipped alert rules and runs their unit
// tests (examples/prometheus/alerts_test.yaml, expiry_test.yaml) with every promtool found,
// and checks the rules of the generated PrometheusRule too.
func TestAlertRulesPromtool(t *testing.T) {
	dir := filepath.Join(examplesDir, "prometheus")
	spec := prometheusRuleSpec(t, filepath.Join(dir, "prometheusrule.yaml"))
	for _, promtool := range promtools(t) {
		t.Run(prometheusVersion(filepath.Join(filepath.Dir(promtool), "prometheus")), func(t *testing.T) {
			for _, args := range [][]string{
				{"check", "rules", "alerts.yaml"},
				{"test", "rules", "alerts_test.yaml"},
				{"test", "rules", "expiry_test.yaml"},
				{"check", "rules", spec},
			} {
				cmd := exec.Command(promtool, args...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("promtool %v: %v\n%s", args, err, out)
				}
				t.Logf("promtool %v:\n%s", args, out)
			}
		})
	}
}

// prometheusRuleSpec writes the spec of a PrometheusRule (its groups) to a
// rules file promtool can read, and returns its path.
func prometheusRuleSpec(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, spec, ok := strings.Cut(string(b), "\nspec:\n")
	if !ok {
		t.Fatalf("%s: no spec", path)
	}
	var rules strings.Builder
	for _, line := range strings.SplitAfter(spec, "\n") {
		rules.WriteString(strings.TrimPrefix(line, "  "))
	}
	out := filepath.Join(t.TempDir(), "prometheusrule-spec.yaml")
	if err := os.WriteFile(out, []byte(rules.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
