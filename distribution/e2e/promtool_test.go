package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestAlertRulesPromtool checks the shipped alert rules and runs their unit
// tests (examples/prometheus/alerts_test.yaml) with promtool.
func TestAlertRulesPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian: apt-get install -y prometheus); .ci/run installs it")
	}
	dir := filepath.Join(examplesDir, "prometheus")
	for _, args := range [][]string{{"check", "rules", "alerts.yaml"}, {"test", "rules", "alerts_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %v: %v\n%s", args, err, out)
		}
		t.Logf("promtool %v:\n%s", args, out)
	}
}
