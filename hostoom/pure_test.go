// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPure: hostoom imports the standard library, the recogniser's face
// (oom: the prefilter, the verdict names), the header grammar (logheader)
// and its own packages only: no collector types, so the failure
// assembly stage and xlaoom explain can host it. No file is over 400 lines.
func TestPure(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatal(err, files)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > 400 {
			t.Errorf("%s: %d lines, more than 400", f, n)
		}
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, b, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.Contains(p, ".") && p != "github.com/xlaoom/xlaoomprocessor/oom" &&
				!strings.HasPrefix(p, "github.com/xlaoom/xlaoomprocessor/hostoom/") && p != "github.com/xlaoom/xlaoomprocessor/internal/logheader" {
				t.Errorf("%s imports %s: hostoom is pure Go (standard library and oom only)", f, p)
			}
		}
	}
}
