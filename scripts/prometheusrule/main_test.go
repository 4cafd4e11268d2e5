// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedFileIsGenerated: examples/prometheus/prometheusrule.yaml is
// what `go run ./scripts/prometheusrule` writes from the rules files.
func TestCommittedFileIsGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := readRules(root)
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(files...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, outPath))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s is stale: run `go run ./scripts/prometheusrule` from the repository root", outPath)
	}
}

func TestGenerateNeedsGroups(t *testing.T) {
	if _, err := generate([]byte("groups:\n  - name: a\n"), []byte("# no rules\n")); err == nil {
		t.Fatal("a file without groups: was accepted")
	}
}
