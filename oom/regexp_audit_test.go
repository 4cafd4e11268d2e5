// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegexpAudit: regular expressions are Go RE2 (linear time) and only
// compiled from program text at package initialisation; no user-supplied
// pattern is ever compiled. In the component module's non-test files only
// oom/internal/families/grammar/pattern.go (and the last-resort layer's
// fixed expressions) import regexp and call only regexp.MustCompile; the
// functions that reach it (CompilePattern, newRecognizer) live in families/grammar/pattern.go
// and oom/recognizer.go, and are called only from a package-level var
// initialiser (defaultRecognizer, built from the family table), never from a
// function body elsewhere, so never with runtime data.
func TestRegexpAudit(t *testing.T) {
	fset := token.NewFileSet()
	root := ".." // the component module
	var files []*ast.File
	var names []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module (distribution, bench, tools)
				}
				// scripts/ holds development commands (coveragetable reads
				// source trees, not records) and internal/jobcheck the job-log
				// tests' expectations: never linked into the component
				// (TestJobcheckOnlyInTests).
				if base := d.Name(); base == "testdata" || base == "out" || base == "scripts" || path == filepath.Join(root, "internal", "jobcheck") || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files, names = append(files, f), append(names, rel)
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatal(err, len(files))
	}

	// compilers: functions that call regexp directly, then those that call
	// a compiler (to a fixed point). All must live in package oom.
	compilers := map[string]bool{}
	for i, f := range files {
		for _, im := range f.Imports {
			if im.Path.Value == `"regexp"` || im.Path.Value == `"regexp/syntax"` {
				// families/generic/generic.go: the last-resort layer's fixed expressions, compiled in package-level vars.
				// hostoom/*.go: the host-memory kill formats, fixed expressions compiled in package-level vars.
				if names[i] != patternFile && names[i] != filepath.Join("oom", "internal", "families", "generic", "generic.go") &&
					filepath.Dir(names[i]) != "hostoom" {
					t.Errorf("%s imports %s: a new file compiles regular expressions: audit it and extend this test", names[i], im.Path.Value)
				}
			}
		}
		eachFunc(f, func(fn *ast.FuncDecl) {
			ast.Inspect(fn, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" && sel.Sel.Name != "Regexp" {
					if sel.Sel.Name != "MustCompile" {
						t.Errorf("%s: regexp.%s", fset.Position(sel.Pos()), sel.Sel.Name)
					}
					compilers[fn.Name.Name] = true
				}
				return true
			})
		})
	}
	if len(compilers) == 0 {
		t.Fatal("no function compiles a regexp: the audit lost track of pattern.go")
	}
	for grown := true; grown; {
		grown = false
		for _, f := range files {
			eachFunc(f, func(fn *ast.FuncDecl) {
				if !compilers[fn.Name.Name] && callsAny(fn.Body, compilers) != nil {
					compilers[fn.Name.Name], grown = true, true
				}
			})
		}
	}
	// Only families/grammar/pattern.go and recognizer.go may hold compilers: any other
	// function that reaches regexp (e.g. one calling newRecognizer at run
	// time) joined the set above from another file.
	for i, f := range files {
		if names[i] == patternFile || names[i] == filepath.Join("oom", "recognizer.go") {
			continue
		}
		eachFunc(f, func(fn *ast.FuncDecl) {
			if call := callsAny(fn.Body, compilers); call != nil {
				t.Errorf("%s: %s calls %s inside func %s: a pattern compiled at run time",
					names[i], fset.Position(call.Pos()), calledName(call), fn.Name.Name)
			}
		})
	}
	// The recogniser itself is built only at package initialisation.
	for i, f := range files {
		eachFunc(f, func(fn *ast.FuncDecl) {
			if call := callsAny(fn.Body, map[string]bool{"newRecognizer": true}); call != nil {
				t.Errorf("%s: %s calls newRecognizer inside func %s: build it only in a package-level var", names[i], fset.Position(call.Pos()), fn.Name.Name)
			}
		})
	}
	t.Logf("regexp compiled only through %v, at package initialisation", compilers)
}

// patternFile compiles every family's expression.
var patternFile = filepath.Join("oom", "internal", "families", "grammar", "pattern.go")

func eachFunc(f *ast.File, fn func(*ast.FuncDecl)) {
	for _, decl := range f.Decls {
		if d, ok := decl.(*ast.FuncDecl); ok && d.Body != nil {
			fn(d)
		}
	}
}

// callsAny returns the first call in n of a function named in set, or nil:
// name() in its own package, pkg.name() from another.
func callsAny(n ast.Node, set map[string]bool) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(n, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && found == nil {
			if set[calledName(call)] {
				found = call
			}
		}
		return found == nil
	})
	return found
}

// calledName is the name of the function call calls ("" for a method or
// a function value).
func calledName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if _, ok := f.X.(*ast.Ident); ok {
			return f.Sel.Name
		}
	}
	return ""
}

// TestJobcheckOnlyInTests: internal/jobcheck (skipped by the audit above)
// compiles regular expressions over job logs; only test files may import it.
func TestJobcheckOnlyInTests(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if strings.Contains(filepath.ToSlash(path), "/internal/jobcheck/") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			if strings.HasSuffix(im.Path.Value, `/internal/jobcheck"`) {
				t.Errorf("%s imports internal/jobcheck: it is for tests only", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
