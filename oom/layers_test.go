// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The recogniser's layers, in data-flow order (ARCHITECTURE.md): a package
// may import only packages of a lower layer. Packages of one layer do not
// import each other either, except where a row names its own order
// (families/grammar < families/details, families/breakdown < families,
// families/generic).
var layers = map[string]int{
	"internal/logtext":            0, // a record becomes statements
	"internal/speaker":            1, // who printed each statement
	"internal/families/grammar":   2, // what a family is; the facts (Report)
	"internal/families/details":   3, // what surrounds any family
	"internal/families/breakdown": 3, // memory breakdowns
	"internal/startup":            3, // a process's devices, pools and plan at start-up
	"internal/families":           4, // the entries, one per message format
	"internal/families/generic":   4, // the last-resort layer
	"internal/role":               5, // failure, attempt, warning or nothing
	"internal/diagnosis":          6, // cause and advice
	".":                           7, // the face: Recognizer
	"internal/gendocs":            8, // make generate's documentation
}

const (
	maxFileLines    = 600
	maxPackageLines = 2000
)

// TestLayers: every package of the recogniser is a known layer, imports
// only lower ones, keeps each file within maxFileLines and its non-test,
// non-generated code within maxPackageLines.
func TestLayers(t *testing.T) {
	const module = "github.com/xlaoom/xlaoomprocessor/oom"
	pkgLines := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		layer, known := layers[dir]
		if !known {
			t.Errorf("%s: package %s is in no layer: place it in layers (layers_test.go) and ARCHITECTURE.md", path, dir)
			return nil
		}
		n, generated := lineCount(t, path)
		if n > maxFileLines {
			t.Errorf("%s: %d lines, more than %d: split it by job", path, n, maxFileLines)
		}
		test := strings.HasSuffix(path, "_test.go")
		if !test && !generated {
			pkgLines[dir] += n
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if strings.HasSuffix(f.Name.Name, "_test") {
			return nil // an external test may use any layer
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			rel, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				continue
			}
			if l, ok := layers[rel]; ok && l >= layer && rel != dir {
				t.Errorf("%s imports %s: layer %d may import only lower layers (%d)", path, rel, layer, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(pkgLines))
	for d := range pkgLines {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if pkgLines[d] > maxPackageLines {
			t.Errorf("package %s: %d lines of non-test code, more than %d: split it", d, pkgLines[d], maxPackageLines)
		}
		t.Logf("%-30s %5d lines", d, pkgLines[d])
	}
	if len(dirs) < 8 {
		t.Errorf("found %d packages: the walk lost the layers", len(dirs))
	}
}

// lineCount counts path's lines and tells whether it is generated code.
func lineCount(t *testing.T, path string) (n int, generated bool) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if n++; strings.HasPrefix(sc.Text(), "// Code generated ") && strings.HasSuffix(sc.Text(), " DO NOT EDIT.") {
			generated = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n, generated
}
