// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository root, seen from this package's directory.
const root = "../../.."

// TestGeneratedDocsAreCurrent fails when docs/message-formats.md or the
// family table of docs/recognition.md differ from what the family entries generate: run
// make generate and commit the result.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join(root, "docs", "message-formats.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(docs) != messageFormats() {
		t.Error("docs/message-formats.md is stale: run make generate")
	}
	summary, err := os.ReadFile(filepath.Join(root, "docs", "recognition.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := replaceBetweenMarkers(string(summary), familiesMarker, familyTable())
	if err != nil {
		t.Fatal(err)
	}
	if string(summary) != want {
		t.Error("the generated family table of docs/recognition.md is stale: run make generate")
	}
}

func TestReplaceBetweenMarkers(t *testing.T) {
	doc := "a\n<!-- BEGIN GENERATED: x -->\nold\n<!-- END GENERATED: x -->\nb\n"
	got, err := replaceBetweenMarkers(doc, "x", "new\n")
	if err != nil || got != "a\n<!-- BEGIN GENERATED: x -->\nnew\n<!-- END GENERATED: x -->\nb\n" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := replaceBetweenMarkers("no markers", "x", "new\n"); err == nil {
		t.Error("missing markers accepted")
	}
}

func TestWriteUpdatesBothFiles(t *testing.T) {
	dir := t.TempDir()
	docs, summary := filepath.Join(dir, "formats.md"), filepath.Join(dir, "recognition.md")
	if err := os.WriteFile(summary, []byte("intro\n<!-- BEGIN GENERATED: families -->\n<!-- END GENERATED: families -->\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(docs, summary); err != nil {
		t.Fatal(err)
	}
	d, _ := os.ReadFile(docs)
	r, _ := os.ReadFile(summary)
	if !strings.Contains(string(d), "### tpu-runtime-buffer") || !strings.Contains(string(r), "[`tpu-runtime-buffer`]") || !strings.HasSuffix(string(r), "end\n") {
		t.Errorf("reference or summary not written:\n%s\n%s", d, r)
	}
}
