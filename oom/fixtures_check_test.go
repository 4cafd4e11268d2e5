// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// want is everything a fixture asserts about its Report. Name, Category,
// Phase and DocURL are checked from the code through catalogWant, a table
// written independently of families/grammar/catalog.go.
type want struct {
	code, family, backend, space, program, device, cause, instr     string
	requested, free, used, capacity, exceeded, reserved, reservable grammar.Size
	// rp is "" (none), "r0" (replica only) or "r0p34" (replica and partition).
	rp string
	// phase overrides the code's phase (E0007 has none of its own).
	phase string
	// category overrides the code's catalog category, for the families
	// that refine it with what failed (GPU driver, TensorFlow op).
	category string
	words    grammar.SparseCoreWords
	advice   []string // substrings the remediation must contain
}

var catalogWant = map[string]struct{ name, category, phase, doc string }{
	"E0007": {"ResourceExhausted", "Resource Exhausted: Out of Memory", grammar.PhaseRuntime, ""},
	"E0100": {"RuntimeBufferAllocationFailure", "Runtime: Buffer Allocation Failure", grammar.PhaseRuntime, "https://openxla.org/xla/errors/error_0100"},
	"E0101": {"RuntimeProgramAllocationFailure", "Runtime: Program Allocation Failure", grammar.PhaseRuntime, "https://openxla.org/xla/errors/error_0101"},
	"E1000": {"CompileTimeHbmOom", "Compile Time: HBM OOM", grammar.PhaseCompile, "https://openxla.org/xla/errors/error_1000"},
	"E1001": {"CompileTimeScopedVmemOom", "Compile Time: Scoped Vmem OOM", grammar.PhaseCompile, "https://openxla.org/xla/errors/error_1001"},
	"E3000": {"CompileTimeSparseCoreAllocationFailure", "Compile Time: SparseCore Allocation Failure", grammar.PhaseCompile, "https://openxla.org/xla/errors/error_3000"},
}

func b(n int64) grammar.Size { return grammar.KnownSize(n) }

// sizeNames names the Report sizes a want states, in the order reportSizes
// and want.sizes list them. PoolLimit, which only the GPU allocator families
// print, has checks of its own.
var sizeNames = [...]string{"Requested", "Free", "Used", "Capacity", "Exceeded", "Reserved", "Reservable"}

func reportSizes(r grammar.Report) [len(sizeNames)]grammar.Size {
	return [...]grammar.Size{r.Requested, r.Free, r.Used, r.Capacity, r.Exceeded, r.Reserved, r.Reservable}
}

func (w want) sizes() [len(sizeNames)]grammar.Size {
	return [...]grammar.Size{w.requested, w.free, w.used, w.capacity, w.exceeded, w.reserved, w.reservable}
}

// fixture is one real message. src names where the text comes from: a public
// URL, an OpenXLA error page, a capture under testdata/real, or the
// family's section of docs/message-formats.md; texts marked "composed" join
// verbatim pieces the sources elide.
type fixture struct {
	name, src string
	text      string // inline text, or
	file      string // a file under testdata/messages, or
	capture   string // a raw capture under testdata/real (its only copy)
	want      want
}

func (f fixture) body(t testing.TB) string {
	path := filepath.Join("testdata", "messages", f.file)
	switch {
	case f.capture != "":
		path = filepath.Join(realDir, f.capture)
	case f.file == "":
		return f.text
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			text := f.body(t)
			if !MayContain(text) {
				t.Errorf("MayContain = false")
			}
			r, ok := Recognize(text)
			if !ok {
				t.Fatalf("not recognised")
			}
			checkReport(t, r, f.want)
		})
	}
}

func checkReport(t *testing.T, r grammar.Report, w want) {
	t.Helper()
	cw, ok := catalogWant[w.code]
	if !ok {
		t.Fatalf("bad fixture code %q", w.code)
	}
	eq := func(field, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	eq("Code", r.Code, w.code)
	eq("Name", r.Name, cw.name)
	category := cw.category
	if w.category != "" {
		category = w.category
	}
	eq("Category", r.Category, category)
	phase := cw.phase
	if w.phase != "" {
		phase = w.phase
	}
	eq("Phase", r.Phase, phase)
	eq("DocURL", r.DocURL, cw.doc)
	eq("Family", r.Family, w.family)
	eq("Backend", r.Backend, w.backend)
	eq("MemorySpace", r.MemorySpace, w.space)
	eq("Program", r.Program, w.program)
	eq("Device", r.Device, w.device)
	eq("Cause", r.Cause, w.cause)
	eq("Instruction", r.Instruction, w.instr)
	got, exp := reportSizes(r), w.sizes()
	for i, name := range sizeNames {
		if got[i] != exp[i] {
			t.Errorf("%s = %+v, want %+v", name, got[i], exp[i])
		}
	}
	eq("replica/partition", rpString(r), w.rp)
	if r.Words != w.words {
		t.Errorf("Words = %+v, want %+v", r.Words, w.words)
	}
	if len(r.Remediation) == 0 {
		t.Fatalf("no remediation")
	}
	all := strings.Join(r.Remediation, "\n")
	for _, a := range w.advice {
		if !strings.Contains(all, a) {
			t.Errorf("remediation lacks %q:\n%s", a, all)
		}
	}
	for i, step := range r.Remediation {
		if strings.TrimSpace(step) == "" {
			t.Errorf("remediation step %d is empty", i)
		}
	}
}

func rpString(r grammar.Report) string {
	s := ""
	if r.HasReplica {
		s += "r" + strconv.FormatInt(r.Replica, 10)
	}
	if r.HasPartition {
		s += "p" + strconv.FormatInt(r.Partition, 10)
	}
	return s
}
