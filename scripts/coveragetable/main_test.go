// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const root = "../.."

// TestCommittedFilesAreGenerated: docs/xla-coverage.md is what the tables
// generate, and templates.tsv is in canonical form (ids from the text,
// sorted): run `go run ./scripts/coveragetable` (make generate).
func TestCommittedFilesAreGenerated(t *testing.T) {
	tbl, err := readTable(filepath.Join(root, tablePath))
	if err != nil {
		t.Fatal(err)
	}
	class, err := readClassification(filepath.Join(root, classPath))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile(filepath.Join(root, docsPath))
	if err != nil {
		t.Fatal(err)
	}
	if string(docs) != coverageDoc(tbl.rows, class) {
		t.Errorf("%s is stale: run make generate", docsPath)
	}
	table, err := os.ReadFile(filepath.Join(root, tablePath))
	if err != nil {
		t.Fatal(err)
	}
	if string(table) != tableText(tbl) {
		t.Errorf("%s is not canonical (ids, order): run make generate", tablePath)
	}
}

func TestExtract(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
		want      string // "" when nothing OOM-like is printed
	}{
		{"format over two literals", `  if (!ok) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "Could not allocate %s (%d bytes) "
        "for the widget on device %d", Human(n), n, ordinal));
  }`, 2, "Could not allocate <Human(n)> (<n> bytes) for the widget on device <ordinal>"},
		{"concatenation", `  return ResourceExhausted(StrCat("Failed to allocate ", size,
                                  " bytes for the cache"));`, 1, "Failed to allocate <size> bytes for the cache"},
		{"stream", `  LOG(ERROR) << Name() << " failed to allocate " << bytes
             << " bytes: " << status;`, 1, "<Name()> failed to allocate <bytes> bytes: <status>"},
		{"choices", `  return ResourceExhausted(StrCat("Out of ", (on_host ? "host " : ""), "memory for ", n,
                                  " bytes.", (on_host ? kHint : "")));`, 1, "Out of [host ]memory for <n> bytes.<kHint>"},
		{"status code comparison", `  if (status.code() == absl::StatusCode::kResourceExhausted) {`, 1, ""},
		{"unrelated text", `  return absl::InternalError("Index is out of range");`, 1, ""},
		{"exhausted status of anything", `  return absl::ResourceExhaustedError("Too many open widgets");`, 1, "Too many open widgets"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, ok := extract("x.cc", strings.Split(c.src, "\n"), c.line)
			if c.want == "" {
				if ok {
					t.Errorf("extracted %q", got.text)
				}
				return
			}
			if !ok || got.text != c.want {
				t.Errorf("got %q (%v), want %q", got.text, ok, c.want)
			}
		})
	}
}

// A scan of a newer snapshot replaces the source's current rows and keeps
// older wordings and other sources' rows, so the table's diff is the drift.
func TestMergeKeepsOtherRows(t *testing.T) {
	old := []row{
		{id: rowID("xla", "a.cc", "Old text <n>"), source: "xla", era: current, file: "a.cc", line: 1, since: "2020-01-01 abc", text: "Old text <n>"},
		{id: rowID("xla", "a.cc", "Kept text"), source: "xla", era: current, file: "a.cc", line: 5, since: "2021-01-01 def", text: "Kept text"},
		{id: rowID("xla", "b.cc", "Older wording"), source: "xla", era: "2017-01..2019-01", file: "b.cc", since: "-", text: "Older wording"},
		{id: rowID("jax", "c.cc", "Jax text"), source: "jax", era: current, file: "c.cc", line: 3, since: "-", text: "Jax text"},
	}
	got := merge(old, "xla", []template{{"a.cc", 7, "Kept text"}, {"a.cc", 9, "New text"}}, gitDir{}, false)
	var texts []string
	for _, r := range got {
		texts = append(texts, r.source+"|"+r.era+"|"+r.text+"|"+r.since)
	}
	want := []string{"jax|current|Jax text|-", "xla|current|Kept text|2021-01-01 def", "xla|current|New text|-", "xla|2017-01..2019-01|Older wording|-"}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
}

func TestLongestFixedPiece(t *testing.T) {
	for text, want := range map[string]string{
		"Shape <ShapeUtil::HumanString(shape)> requires too much memory (<byte_size> bytes)": " requires too much memory (",
		"Out of [host ]memory while trying to allocate <size>":                               "memory while trying to allocate ",
		`Failed - <status>\n\tYou can set the env var`:                                       "You can set the env var",
	} {
		if got := longestFixedPiece(text); got != want {
			t.Errorf("longestFixedPiece(%q) = %q, want %q", text, got, want)
		}
	}
}
