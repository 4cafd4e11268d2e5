// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// contributingExample is the example entry of CONTRIBUTING.md ("Adding a new
// message format"), compiled here. TestContributingExample checks that the
// document shows these lines verbatim and that the entry, added to the real
// table, builds and reads its example.
var contributingExample = []grammar.Family{
	// BEGIN CONTRIBUTING EXAMPLE
	{
		ID:      "gpu-runtime-example-pool", // backend-phase-what, lower case, unique
		Summary: "The example allocator's pool could not serve a request.",
		Kind:    grammar.Fatal, // or grammar.LogOnly for an allocator or driver log line
		Code:    grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
		Anchor: "Example pool exhausted", // literal text of Expr, its rarest fixed words
		Expr: `Example pool exhausted: could not allocate ` + grammar.SizeGroup("requested") +
			` on device (?P<device>\d+); pool limit ` + grammar.SizeGroup("pool_limit"),
		Example: "RESOURCE_EXHAUSTED: Example pool exhausted: could not allocate 2.00GiB on device 0; pool limit 40.00GiB",
	},
	// END CONTRIBUTING EXAMPLE
}

func TestContributingExample(t *testing.T) {
	src, err := os.ReadFile("contributing_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, entry, _ := strings.Cut(string(src), "// BEGIN CONTRIBUTING EXAMPLE\n")
	entry, _, _ = strings.Cut(entry, "\t// END CONTRIBUTING EXAMPLE")
	doc, err := os.ReadFile("../CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	// The document shows the entry one tab less indented, inside a list item
	// (three spaces).
	shown := strings.ReplaceAll(string(doc), "\n   ", "\n")
	if entry == "" || !strings.Contains(shown, strings.ReplaceAll(entry, "\n\t", "\n")[1:]) {
		t.Errorf("CONTRIBUTING.md does not show the example entry of contributing_test.go verbatim:\n%s", entry)
	}

	groups := append(append([][]grammar.Family{}, families.FailureGroups...), contributingExample)
	z := newRecognizer(groups, families.WarningGroups) // panics on a clash with the table
	f := contributingExample[0]
	r, ok := z.Recognize(f.Example)
	if !ok || r.Family != f.ID {
		t.Fatalf("the example is read as %q (ok %v)", r.Family, ok)
	}
	if r.Requested != grammar.KnownSize(2<<30) || r.PoolLimit != grammar.KnownSize(40<<30) || r.Capacity.Known || r.Device != "0" {
		t.Errorf("requested %+v, pool limit %+v, capacity %+v, device %q", r.Requested, r.PoolLimit, r.Capacity, r.Device)
	}
	if !z.MayContain(f.Example) {
		t.Error("the example does not pass MayContain")
	}
}
