// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/jobcheck"
)

// componentDir is the component module's root, which holds cmd/xlaoom.
const componentDir = "../.."

// explainRetries builds `xlaoom` from the component module and returns the
// retry verdict `xlaoom explain --json` gives the failure of each job's log
// (none for a job without one): what the pipeline must agree with.
func explainRetries(t *testing.T, jobs []jobcheck.Job) map[string]string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "xlaoom")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/xlaoom")
	build.Dir = componentDir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building xlaoom: %v\n%s", err, out)
	}
	out := map[string]string{}
	for _, j := range jobs {
		abs, err := filepath.Abs(j.Log)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, "explain", "--json", abs)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		// Exit status 1 and 3 say that a failure was found.
		var exit *exec.ExitError
		if err := cmd.Run(); err != nil && (!errors.As(err, &exit) || exit.ExitCode() == 2) {
			t.Fatalf("xlaoom explain %s: %v\n%s", j.Log, err, stderr.String())
		}
		dec := json.NewDecoder(&stdout)
		for dec.More() {
			var f struct {
				Severity string `json:"severity"`
				Retry    string `json:"retry"`
			}
			if err := dec.Decode(&f); err != nil {
				t.Fatalf("xlaoom explain %s: %v", j.Log, err)
			}
			if f.Severity != "ERROR" {
				continue
			}
			if _, twice := out[j.Name]; twice {
				t.Fatalf("xlaoom explain %s: more than one failure", j.Log)
			}
			out[j.Name] = f.Retry
		}
	}
	return out
}
