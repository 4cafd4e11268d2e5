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

// explainRetries returns the retry verdict `xlaoom explain --json` gives the
// failure of each job's log (none for a job without one): what the pipeline
// must agree with.
func explainRetries(t *testing.T, jobs []jobcheck.Job) map[string]string {
	t.Helper()
	bin := buildXlaoom(t)
	out := map[string]string{}
	for _, j := range jobs {
		retries := explainFailures(t, bin, j.Log)
		if len(retries) > 1 {
			t.Fatalf("xlaoom explain %s: more than one failure", j.Log)
		}
		if len(retries) == 1 {
			out[j.Name] = retries[0]
		}
	}
	return out
}

// buildXlaoom builds `xlaoom` from the component module.
func buildXlaoom(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "xlaoom")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/xlaoom")
	build.Dir = componentDir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building xlaoom: %v\n%s", err, out)
	}
	return bin
}

// explainFailures returns the retry verdict of each failure `xlaoom explain
// --json` finds in the log at path, in the log's order.
func explainFailures(t *testing.T, bin, path string) []string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "explain", "--json", abs)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Exit status 1 and 3 say that a failure was found.
	var exit *exec.ExitError
	if err := cmd.Run(); err != nil && (!errors.As(err, &exit) || exit.ExitCode() == 2) {
		t.Fatalf("xlaoom explain %s: %v\n%s", path, err, stderr.String())
	}
	var retries []string
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var f struct {
			Severity string `json:"severity"`
			Retry    string `json:"retry"`
		}
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("xlaoom explain %s: %v", path, err)
		}
		if f.Severity == "ERROR" {
			retries = append(retries, f.Retry)
		}
	}
	return retries
}
