// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor_test

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// makeOutput runs make with args in the repository root; GO=false makes any
// build it would start fail at once, so no test here compiles anything.
func makeOutput(t *testing.T, args ...string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	out, err := exec.Command("make", append([]string{"--no-print-directory", "GO=false"}, args...)...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("make %v: %v", args, err)
	return "", 0
}

var helpTarget = regexp.MustCompile(`(?m)^  ([a-z0-9-]+) +\S`)

// TestMakeHelpUsersFirst: a newcomer reading `make help` meets the targets
// that try and run xla_oom before those that develop it.
func TestMakeHelpUsersFirst(t *testing.T) {
	out, status := makeOutput(t, "help")
	if status != 0 {
		t.Fatalf("make help: status %d\n%s", status, out)
	}
	var targets []string
	for _, m := range helpTarget.FindAllStringSubmatch(out, -1) {
		targets = append(targets, m[1])
	}
	if len(targets) == 0 || targets[0] != "run" {
		t.Fatalf("make help lists %v, want run first", targets)
	}
	for _, user := range []string{"run-config", "xlaoom", "build-dist", "image"} {
		for _, dev := range []string{"test", "unit", "lint", "generate", "bench", "fuzz"} {
			u, d := slices.Index(targets, user), slices.Index(targets, dev)
			if u < 0 || d < 0 || u > d {
				t.Errorf("make help lists %s at %d and %s at %d: want the user's target first, both listed", user, u, dev, d)
			}
		}
	}
}

// TestMakeRunConfigUsageFirst: run-config without CONFIG or LOGS says how to
// call it, and builds nothing first.
func TestMakeRunConfigUsageFirst(t *testing.T) {
	if _, err := os.Stat("distribution/Makefile"); err != nil {
		t.Skip("run-config is distribution/'s target; this copy of the module has no distribution/")
	}
	out, status := makeOutput(t, "run-config")
	if status != 2 || !strings.HasPrefix(out, "usage: make run-config CONFIG=") || strings.Contains(out, "build") {
		t.Errorf("make run-config: status %d, want 2 and the usage before any build:\n%s", status, out)
	}
}
