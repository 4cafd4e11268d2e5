// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureRepo makes a git repository with two commits: the first holds no
// message template (a README), the second an XLA-like file with one
// ResourceExhausted status (the wording of XLA's BFC allocator). It returns
// the directory and the two commits.
func fixtureRepo(t *testing.T) (dir, empty, full string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("README.md", "a tree with no message\n")
	git("add", ".")
	git("commit", "-q", "-m", "empty")
	empty = git("rev-parse", "HEAD")
	write("xla/allocator.cc", `absl::Status Allocate(int64_t num_bytes) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "Out of memory while trying to allocate ", num_bytes, " bytes."));
}
`)
	git("add", ".")
	git("commit", "-q", "-m", "allocator")
	full = git("rev-parse", "HEAD")
	return dir, empty, full
}

// TestScanRecordsTheCommit: a scan resolves its ref to the full commit hash
// and finds the template.
func TestScanRecordsTheCommit(t *testing.T) {
	dir, _, full := fixtureRepo(t)
	found, commit, err := scanSource(gitDir{dir: dir, ref: "main"}, sources["xla"].paths)
	if err != nil {
		t.Fatal(err)
	}
	if commit != full || len(commit) != 40 {
		t.Errorf("commit = %q, want %q", commit, full)
	}
	if len(found) != 1 || found[0].text != "Out of memory while trying to allocate <num_bytes> bytes." {
		t.Errorf("found %+v", found)
	}
}

// TestScanRefusesAnEmptyScan: a ref whose tree holds no template, or a
// source whose paths the tree lacks, is an error naming the commit, not an
// empty table; a ref that does not exist is an error too.
func TestScanRefusesAnEmptyScan(t *testing.T) {
	dir, empty, full := fixtureRepo(t)
	for _, c := range []struct {
		name, ref string
		paths     []string
		want      string
	}{
		{"commit without templates", empty, sources["xla"].paths, "no message template found"},
		{"another source's paths", full, sources["jax"].paths, "no message template found"},
		{"unknown ref", "no-such-branch", sources["xla"].paths, "rev-parse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			found, _, err := scanSource(gitDir{dir: dir, ref: c.ref}, c.paths)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, found %d templates; want an error with %q", err, len(found), c.want)
			}
		})
	}
}

// TestScannedCommitsRoundTrip: the scanned commits survive a read and a
// write, one header line per source, in source order.
func TestScannedCommitsRoundTrip(t *testing.T) {
	in := table{
		rows:    []row{{id: rowID("xla", "a.cc", "Out of memory"), source: "xla", era: current, file: "a.cc", line: 3, since: "-", text: "Out of memory"}},
		scanned: map[string]string{"xla": strings.Repeat("a", 40), "jax": strings.Repeat("b", 40)},
	}
	text := tableText(in)
	if !strings.Contains(text, "# scanned: jax "+strings.Repeat("b", 40)+"\n# scanned: xla "+strings.Repeat("a", 40)+"\n") {
		t.Errorf("header lacks the scanned commits in order:\n%s", text)
	}
	p := filepath.Join(t.TempDir(), "templates.tsv")
	if err := writeTable(p, in); err != nil {
		t.Fatal(err)
	}
	out, err := readTable(p)
	if err != nil {
		t.Fatal(err)
	}
	if tableText(out) != text {
		t.Errorf("round trip changed the table:\n%s\nwant\n%s", tableText(out), text)
	}
}
