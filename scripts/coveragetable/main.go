// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command coveragetable keeps the coverage table: every out-of-memory-like
// message template the XLA stack's source can print, and what the
// recogniser makes of it.
//
// Scan a source snapshot (a checkout or a bare git directory) and rewrite
// that source's current rows of oom/testdata/coverage/templates.tsv:
//
//	go run ./scripts/coveragetable -src /path/to/xla [-ref main] [-source xla]
//
// Rows of other sources and historical wordings are kept as they are, so
// the git diff of the table is what changed in that source. The ref's
// commit is recorded in the table's header ("# scanned: xla <commit>"); a
// scan that finds no template is refused (exit status 1, the table left
// as it was): a wrong -src, -ref or -source finds none. Then every id
// needs a row in classification.tsv (a family, generic or a look-alike,
// with a fixture): TestCoverageTable in package oom fails until it has one.
// Without -src it only regenerates docs/xla-coverage.md from the two tables
// and gives hand-added rows their ids (make generate does that).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// sources are the scanned trees: the directories that print into the logs
// this project reads, and the files that hold messages (tests excluded).
var sources = map[string]struct{ paths []string }{
	"xla":         {[]string{"xla/*.cc", "xla/*.h"}},
	"jax":         {[]string{"jaxlib/*.cc", "jaxlib/*.h"}},
	"pytorch-xla": {[]string{"torch_xla/csrc/*.cpp", "torch_xla/csrc/*.cc", "torch_xla/csrc/*.h"}},
}

// excluded are tests and the files that define the status constructors and
// error codes (their text is documentation, not a message).
var excluded = []string{":!xla/tsl/platform/errors.h", ":!xla/error/error_codes.h", ":!xla/util.h", ":!*_test.cc", ":!*_test.h", ":!*test_util*", ":!*testlib*", ":!*/tests/*", ":!*mock*", ":!*_benchmark*", ":!*test_lib*"}

const (
	tablePath = "oom/testdata/coverage/templates.tsv"
	classPath = "oom/testdata/coverage/classification.tsv"
	docsPath  = "docs/xla-coverage.md"
)

func main() {
	src := flag.String("src", "", "source checkout or bare git directory to scan")
	ref := flag.String("ref", "HEAD", "git ref to read")
	source := flag.String("source", "xla", "which source the tree is: xla, jax or pytorch-xla")
	since := flag.Bool("since", true, "date each new template with git log -S (slow on a long history)")
	flag.Parse()
	if err := run(*src, *ref, *source, *since); err != nil {
		fmt.Fprintln(os.Stderr, "coveragetable:", err)
		os.Exit(1)
	}
}

func run(src, ref, source string, since bool) error {
	t, err := readTable(tablePath)
	if err != nil {
		return err
	}
	if src != "" {
		s, ok := sources[source]
		if !ok {
			return fmt.Errorf("unknown -source %q", source)
		}
		g := gitDir{dir: src, ref: ref}
		found, commit, err := scanSource(g, s.paths)
		if err != nil {
			return err
		}
		t.rows = merge(t.rows, source, found, g, since)
		t.scanned[source] = commit
	}
	// Without -src this only makes hand-added rows canonical (ids, order).
	if err := writeTable(tablePath, t); err != nil {
		return err
	}
	class, err := readClassification(classPath)
	if err != nil {
		return err
	}
	return os.WriteFile(docsPath, []byte(coverageDoc(t.rows, class)), 0o644)
}

// scanSource scans the ref's paths and resolves the ref to its commit. A
// scan that finds no template is an error, never an empty table: a wrong
// -src, -ref or -source would otherwise delete the source's rows.
func scanSource(g gitDir, paths []string) ([]template, string, error) {
	out, err := g.git("rev-parse", "--verify", "--quiet", g.ref+"^{commit}")
	if err != nil {
		return nil, "", err
	}
	commit := strings.TrimSpace(string(out))
	found, err := scan(g, paths)
	if err != nil {
		return nil, "", err
	}
	if len(found) == 0 {
		return nil, "", fmt.Errorf("no message template found in %s at %s (commit %s) under %s: check -src, -ref and -source; the table is unchanged",
			g.dir, g.ref, commit, strings.Join(paths, " "))
	}
	return found, commit, nil
}

// gitDir reads one ref of a repository, bare or not.
type gitDir struct{ dir, ref string }

func (g gitDir) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", g.dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// scan greps the ref for candidate lines and extracts one template per
// statement.
func scan(g gitDir, paths []string) ([]template, error) {
	args := append([]string{"grep", "-n", "-I", "-E", hitPattern, g.ref, "--"}, paths...)
	out, err := g.git(append(args, excluded...)...)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil, nil // git grep found nothing
	}
	if err != nil {
		return nil, err
	}
	files := map[string][]string{}
	var found []template
	done := map[string]int{} // file -> last line of the statement last extracted
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		l = strings.TrimPrefix(l, g.ref+":")
		file, rest, ok := strings.Cut(l, ":")
		num, _, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 {
			continue
		}
		var line int
		if _, err := fmt.Sscan(num, &line); err != nil || line <= done[file] {
			continue
		}
		lines, ok := files[file]
		if !ok {
			body, err := g.git("show", g.ref+":"+file)
			if err != nil {
				return nil, err
			}
			lines = strings.Split(string(body), "\n")
			files[file] = lines
		}
		if strings.HasPrefix(strings.TrimSpace(lines[line-1]), "//") {
			continue
		}
		t, end, ok := extract(file, lines, line)
		done[file] = end + 1
		if ok {
			found = append(found, t)
		}
	}
	return found, nil
}

// firstSeen is the date and commit where the longest fixed piece of a
// template first appears in the ref's history, or "" when it cannot tell.
func firstSeen(g gitDir, t template) string {
	needle := strings.TrimSpace(longestFixedPiece(t.text))
	if len(needle) < 10 {
		return ""
	}
	// Only files like the template's own, under its first two directories
	// (TSL's also under its old third_party home): a snapshot may lack the
	// blobs of large data files, and a whole-tree -S search is slow. A file
	// moved from elsewhere dates from its move.
	parts, ext := strings.SplitN(t.file, "/", 3), path.Ext(t.file)
	dir := parts[0]
	if len(parts) == 3 {
		dir += "/" + parts[1]
	}
	out, err := g.git("log", "--format=%as %h", "-S"+needle, g.ref, "--", dir+"/*"+ext, "third_party/tsl/*"+ext)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// longestFixedPiece is the longest text of a template outside its
// <placeholders>, [choices] and escapes: what the source has verbatim.
func longestFixedPiece(text string) string {
	best, cur, depth := "", strings.Builder{}, 0
	flush := func() {
		if cur.Len() > len(best) {
			best = cur.String()
		}
		cur.Reset()
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '<' || c == '[':
			flush()
			depth++
		case (c == '>' || c == ']') && depth > 0:
			depth--
		case c == '\\':
			flush()
			i++
		case depth == 0:
			cur.WriteByte(c)
		}
	}
	flush()
	return best
}

func base(file string) string { return path.Base(filepath.ToSlash(file)) }
