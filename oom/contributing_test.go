// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"strings"
	"testing"
)

// contributingExample is the example entry of CONTRIBUTING.md ("Adding a new
// message format"), compiled here. TestContributingExample checks that the
// document shows these lines verbatim and that the entry, added to the real
// table, builds and reads its example.
var contributingExample = []family{
	// BEGIN CONTRIBUTING EXAMPLE
	{
		id:      "gpu-runtime-example-pool", // backend-phase-what, lower case, unique
		summary: "The example allocator's pool could not serve a request.",
		kind:    fatal, // or logOnly for an allocator or driver log line
		code:    codeGeneric, phase: PhaseRuntime, backend: BackendGPU,
		anchor: "Example pool exhausted", // literal text of expr, its rarest fixed words
		expr: `Example pool exhausted: could not allocate ` + sizeGroup("requested") +
			` on device (?P<device>\d+); pool limit ` + sizeGroup("pool_limit"),
		example: "RESOURCE_EXHAUSTED: Example pool exhausted: could not allocate 2.00GiB on device 0; pool limit 40.00GiB",
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

	groups := append(append([][]family{}, failureGroups...), contributingExample)
	z := newRecognizer(groups, warningGroups) // panics on a clash with the table
	f := contributingExample[0]
	r, ok := z.Recognize(f.example)
	if !ok || r.Family != f.id {
		t.Fatalf("the example is read as %q (ok %v)", r.Family, ok)
	}
	if r.Requested != KnownSize(2<<30) || r.PoolLimit != KnownSize(40<<30) || r.Capacity.Known || r.Device != "0" {
		t.Errorf("requested %+v, pool limit %+v, capacity %+v, device %q", r.Requested, r.PoolLimit, r.Capacity, r.Device)
	}
	if !z.MayContain(f.example) {
		t.Error("the example does not pass MayContain")
	}
}
