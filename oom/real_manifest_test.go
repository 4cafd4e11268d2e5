// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

const realDir = "testdata/real"

// ---- manifest

type realManifest map[string]map[string]any // case name -> case object

func loadRealManifest(t *testing.T) realManifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // exact int64 byte counts
	var m struct {
		Cases []map[string]any `json:"cases"`
	}
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	out := realManifest{}
	for _, c := range m.Cases {
		name, _ := c["case"].(string)
		if name == "" {
			t.Fatalf("manifest case without a name: %v", c)
		}
		out[name] = c
	}
	return out
}

// get returns the value at a dotted path ("result.requested.bytes") of a case.
func (m realManifest) get(t *testing.T, name, path string) any {
	t.Helper()
	var v any = m[name]
	if m[name] == nil {
		t.Fatalf("manifest has no case %q", name)
	}
	for _, k := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("manifest %s: %s: %q is not an object", name, path, k)
		}
		if v, ok = obj[k]; !ok {
			t.Fatalf("manifest %s: no %s", name, path)
		}
	}
	return v
}

func (m realManifest) int(t *testing.T, name, path string) int64 {
	t.Helper()
	n, ok := m.get(t, name, path).(json.Number)
	if !ok {
		t.Fatalf("manifest %s: %s is not a number", name, path)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("manifest %s: %s: %v", name, path, err)
	}
	return i
}

// ---- TSL sizes

// realTSLHuman is tsl::strings::HumanReadableNumBytes (xla/tsl/platform/numbers.cc):
// truncating division by 1024 while the value is at least 1 MiB of the unit,
// then %.2f (%.1f for KiB) of one more division.
func realTSLHuman(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	units := "KMGTPE"
	u := 0
	for n >= 1024*1024 {
		n /= 1024
		u++
	}
	prec := 2
	if units[u] == 'K' {
		prec = 1
	}
	return strconv.FormatFloat(float64(n)/1024, 'f', prec, 64) + string(units[u]) + "iB"
}

// realTSLValue is what a TSL token means in bytes, as the recogniser reads it:
// the printed number times the unit, rounded to a byte.
func realTSLValue(t *testing.T, tok string) int64 {
	t.Helper()
	i := strings.IndexAny(tok, "KMGTPE")
	if i < 0 || !strings.HasSuffix(tok, "iB") {
		t.Fatalf("not a TSL size: %q", tok)
	}
	x, err := strconv.ParseFloat(tok[:i], 64)
	if err != nil {
		t.Fatal(err)
	}
	return int64(math.Round(x * math.Pow(1024, float64(strings.IndexByte("KMGTPE", tok[i])+1))))
}

// realTSLBound is how far a TSL token can be from the bytes it was printed for:
// half a unit in the last printed digit (%.2f rounds) plus one unit of the
// previous division (the integer divisions truncate).
func realTSLBound(t *testing.T, tok string) int64 {
	t.Helper()
	i := strings.IndexAny(tok, "KMGTPE")
	if i < 0 {
		t.Fatalf("not a TSL size: %q", tok)
	}
	unit := math.Pow(1024, float64(strings.IndexByte("KMGTPE", tok[i])+1))
	half := 0.005
	if tok[i] == 'K' {
		half = 0.05
	}
	return int64(math.Ceil(half*unit + unit/1024))
}

func realRoundUp256(n int64) int64 { return (n + 255) / 256 * 256 }

// realRelated asserts how an allocator's exact figure relates to the
// allocation the manifest records (see realOOM.relation).
func realRelated(t *testing.T, relation string, alloc, figure int64) {
	t.Helper()
	switch relation {
	case "bfc":
		if realRoundUp256(alloc) != figure {
			t.Errorf("BFC rounded figure %d != realRoundUp256(%d) = %d", figure, alloc, realRoundUp256(alloc))
		}
	case "exact":
		if alloc != figure {
			t.Errorf("allocator figure %d != manifest allocation %d", figure, alloc)
		}
	case "vmm":
		const granularity = 2 << 20
		if up := (alloc + granularity - 1) / granularity * granularity; figure != up {
			t.Errorf("VMM allocation_size %d != %d rounded up to 2 MiB (%d)", figure, alloc, up)
		}
	}
}

func realAbsDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestRealTSLHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{
		100000000000: "93.13GiB", 180007500304: "167.64GiB", 180007500544: "167.64GiB",
		75003125520: "69.85GiB", 6000500496: "5.59GiB", 1610612736: "1.50GiB", 6442450944: "6.00GiB",
		33554432: "32.00MiB", 85018542080: "79.18GiB", 84592820224: "78.78GiB", 63763906560: "59.38GiB",
	} {
		if got := realTSLHuman(n); got != want {
			t.Errorf("realTSLHuman(%d) = %q, want %q", n, got, want)
		}
	}
	// 180007500304 B is 167.645 GiB: only the truncating model prints 167.64,
	// which is 0.00505 GiB (> 0.005 GiB) below the bytes.
	if d := realAbsDiff(realTSLValue(t, "167.64GiB"), 180007500304); d <= 5368709 || d > realTSLBound(t, "167.64GiB") {
		t.Errorf("167.64GiB vs 180007500304: diff %d, bound %d", d, realTSLBound(t, "167.64GiB"))
	}
}

// ---- expectations

// realWant is every attribute asserted on one capture. Sizes not listed here
// (Exceeded, Reserved, Reservable, Words) must be unknown; replica and
// partition must be absent: no capture prints them.
type realWant struct {
	code, family, phase, backend, space, device, program, cause string
	instruction                                                 string // the kernel a jaxlib status names
	requested, free, used, capacity, poolLimit                  grammar.Size
	holder                                                      *realHolder // nil: not asserted (see realOOM.holder)
	advice                                                      []string
	absent                                                      []string // advice that must not be given
}

// realHolder is the executable whose chunks hold the most of the BFC pool in
// the allocator's dump (Report.MemoryHolder), and those bytes; zero: none.
type realHolder struct {
	name string
	size int64
}

// E0007 is the only code the GPU captures carry; written out independently of
// families/grammar/catalog.go.
var realCatalog = map[string]struct{ name, category, doc string }{
	"E0007": {"ResourceExhausted", "Resource Exhausted: Out of Memory", ""},
}

func checkRealReport(t *testing.T, r grammar.Report, w realWant) {
	t.Helper()
	cw, ok := realCatalog[w.code]
	if !ok {
		t.Fatalf("bad expectation: code %q", w.code)
	}
	for _, f := range []struct{ field, got, want string }{
		{"Code", r.Code, w.code}, {"Name", r.Name, cw.name}, {"Category", r.Category, cw.category},
		{"DocURL", r.DocURL, cw.doc}, {"Family", r.Family, w.family}, {"Phase", r.Phase, w.phase},
		{"Backend", r.Backend, w.backend}, {"MemorySpace", r.MemorySpace, w.space},
		{"Device", r.Device, w.device}, {"Program", r.Program, w.program}, {"Cause", r.Cause, w.cause},
		{"Instruction", r.Instruction, w.instruction},
	} {
		if f.got != f.want {
			t.Errorf("%s = %q, want %q", f.field, f.got, f.want)
		}
	}
	for _, s := range []struct {
		name      string
		got, want grammar.Size
	}{
		{"Requested", r.Requested, w.requested}, {"Free", r.Free, w.free}, {"Capacity", r.Capacity, w.capacity},
		{"PoolLimit", r.PoolLimit, w.poolLimit},
		{"Used", r.Used, w.used}, {"Exceeded", r.Exceeded, grammar.Size{}}, {"Reserved", r.Reserved, grammar.Size{}},
		{"Reservable", r.Reservable, grammar.Size{}},
	} {
		if s.got != s.want {
			t.Errorf("%s = %+v, want %+v", s.name, s.got, s.want)
		}
	}
	if w.holder != nil {
		want := grammar.Size{}
		if w.holder.name != "" {
			want = grammar.KnownSize(w.holder.size)
		}
		if r.MemoryHolder != w.holder.name || r.MemoryHolderSize != want {
			t.Errorf("MemoryHolder = %q %+v, want %q %+v", r.MemoryHolder, r.MemoryHolderSize, w.holder.name, want)
		}
	}
	if r.HasReplica || r.HasPartition {
		t.Errorf("replica/partition = %v/%v, want none (no capture prints \"Execution of replica\")", r.HasReplica, r.HasPartition)
	}
	if r.Words != (grammar.SparseCoreWords{}) {
		t.Errorf("Words = %+v, want none", r.Words)
	}
	if len(r.Remediation) == 0 {
		t.Fatal("no remediation")
	}
	for i, step := range r.Remediation {
		if strings.TrimSpace(step) == "" {
			t.Errorf("remediation step %d is empty", i)
		}
	}
	checkAdvice(t, r.Remediation, w.advice, w.absent)
}
