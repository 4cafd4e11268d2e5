// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"strings"
	"testing"
)

// bufferExpr is the TPU runtime buffer message (E0100) as an entry spells
// it: its anchor is its first words, so the text before it has a fixed
// length (none).
const bufferExpr = `Attempting to allocate ` + `(?P<requested>` + SizePattern + `)` + `(?:\. That was not possible\.(?: There are (?P<free>` + SizePattern + `) free\.)?(?:; \((?P<device>\w+)\))?)?`

// executorExpr is StreamExecutor's refused allocation: an optional "[N] "
// before the anchor makes the text before it variable.
const executorExpr = `(?:\[(?P<device>\d+)\] )?Failed to allocate device memory(?: of (?P<requested>` + SizePattern + `)(?: \((?P<requested_exact>\d+) bytes\))?)?: (?:RESOURCE_EXHAUSTED|INTERNAL)`

func TestCompilePatternLead(t *testing.T) {
	p := CompilePattern("buffer", "Attempting to allocate", bufferExpr, 0)
	if p.Lead != 0 || !p.FixedLead {
		t.Errorf("buffer: lead %d fixed %v", p.Lead, p.FixedLead)
	}
	p = CompilePattern("hbm-used", "y in memory space", `Ran out of memory in memory space (?P<space>\w+)\. Used `+SizeGroup("used")+` of `+SizeGroup("capacity"), 0)
	if p.Lead != len("Ran out of memor") || !p.FixedLead {
		t.Errorf("hbm-used: lead %d fixed %v", p.Lead, p.FixedLead)
	}
	p = CompilePattern("executor", "Failed to allocate device memory", executorExpr, 0)
	if p.Lead != len("[")+MaxLeadToken+len("] ") || p.FixedLead {
		t.Errorf("executor: lead %d fixed %v", p.Lead, p.FixedLead)
	}
	if got := strings.Join(p.Yields(), ","); got != "device,requested,requested_exact" {
		t.Errorf("yields %s", got)
	}
}

// An anchor that is not literal text of the expression's top level is a
// malformed entry: the table panics when it is built.
func TestCompilePatternRejectsAnchor(t *testing.T) {
	for _, c := range []struct{ anchor, expr string }{
		{"allocate device", `Failed to (?:allocate device|reserve) memory`},
		{"Attempting", `(`},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("anchor %q in %q compiled", c.anchor, c.expr)
				}
			}()
			CompilePattern("bad", c.anchor, c.expr, 0)
		}()
	}
}

// groupValues is what the standard groups of a match give.
type groupValues struct {
	requested, free Size
	device          string
}

// readAll reads every match of p in text.
func readAll(p *Pattern, text string) []groupValues {
	var out []groupValues
	p.Each(text, func(m Match) {
		var r Report
		ReadStandardGroups(&r, m)
		out = append(out, groupValues{r.Requested, r.Free, r.Device})
	})
	return out
}

func TestEachReadsRealMessages(t *testing.T) {
	buffer := CompilePattern("buffer", "Attempting to allocate", bufferExpr, 0)
	executor := CompilePattern("executor", "Failed to allocate device memory", executorExpr, 0)
	for _, c := range []struct {
		name string
		p    *Pattern
		text string
		want []groupValues
	}{
		{"E0100 doc", &buffer, `ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)`,
			[]groupValues{{KnownSize(8388608), KnownSize(6742344), "0x0x1_HBM0"}}},
		{"bare form", &buffer, `Attempting to allocate 180.59M. That was not possible. There are 142.58M free.; (0x3x0_HBM1)`,
			[]groupValues{{KnownSize(189362340), KnownSize(149505966), "0x3x0_HBM1"}}},
		// a log shipper cut the line inside the free size: it is left unset, never guessed
		{"cut inside a size", &buffer, `Attempting to allocate 180.59M. That was not possible. There are 142.`,
			[]groupValues{{requested: KnownSize(189362340)}}},
		{"cut after the unit", &buffer, `Attempting to allocate 180.59M`, []groupValues{{requested: KnownSize(189362340)}}},
		{"cut inside the request", &buffer, `Attempting to allocate 180.`, []groupValues{{}}},
		// the exact figure wins over the rounded one
		{"refusal with its device", &executor, `E1126 11:16:21.043170     523 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
			[]groupValues{{requested: KnownSize(63763906560), device: "0"}}},
		{"two refusals of a pool backing off (jobs/platform_near_full_oom.log)", &executor,
			"[0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory " +
				"[0] Failed to allocate device memory of 53.45GiB (57387515904 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
			[]groupValues{{requested: KnownSize(63763906560), device: "0"}, {requested: KnownSize(57387515904), device: "0"}}},
		{"anchor without its status", &executor, `Failed to allocate device memory of 59.38GiB (63763906560 bytes)`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := readAll(c.p, c.text)
			if len(got) != len(c.want) {
				t.Fatalf("%d matches, want %d: %+v", len(got), len(c.want), got)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("match %d: %+v\nwant %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestMatchGroups(t *testing.T) {
	p := CompilePattern("executor", "Failed to allocate device memory", executorExpr, 0)
	text := `E1126 11:16:21.043170     523 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`
	n := 0
	p.Each(text, func(m Match) {
		n++
		if m.Start() != strings.Index(text, "[0]") {
			t.Errorf("the message starts at %d", m.Start())
		}
		if m.Group("requested") != "59.38GiB" || RequestedToken(m) != "63763906560" || m.Group("nope") != "" {
			t.Errorf("groups %q %q", m.Group("requested"), RequestedToken(m))
		}
		if !m.Took("device") || m.Took("nope") {
			t.Error("Took")
		}
		// the text goes on past the match: no group is cut
		if CutAtEndOf(m, "requested") || CutInside(m, ": : CUDA") || !CutInside(m, ": : CUDA_ERROR_OUT_OF_MEMORY: out of memory") {
			t.Error("the text is not cut")
		}
	})
	if n != 1 {
		t.Errorf("%d matches", n)
	}
	// Without the "[N] " prefix, no device took part and only the rounded size is printed.
	p.Each(`Failed to allocate device memory of 2.00GiB: RESOURCE_EXHAUSTED`, func(m Match) {
		if m.Took("device") || m.Took("requested_exact") || RequestedToken(m) != "2.00GiB" {
			t.Errorf("device %v exact %v token %q", m.Took("device"), m.Took("requested_exact"), RequestedToken(m))
		}
	})
}

func TestEachAnchor(t *testing.T) {
	var at []int
	EachAnchor("_HBM0 (0x0x1_HBM0) 0x3x0_HBM1", "_HBM", func(i int) { at = append(at, i) })
	if len(at) != 3 || at[0] != 0 || at[1] != 12 || at[2] != 24 {
		t.Errorf("anchors at %v", at)
	}
}

// EachAttempt reads the refusals the verdict takes for attempts.
func TestEachAttempt(t *testing.T) {
	c := Compiled{Warnings: []WarningFamily{{ID: "executor", Backend: BackendGPU,
		Pattern: CompilePattern("executor", "Failed to allocate device memory", executorExpr, 0)}}, Attempts: []int{0}}
	// jobs/platform_near_full_oom.log: the pool backs off by 0.9
	flat := "[0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory " +
		"[0] Failed to allocate device memory of 53.45GiB (57387515904 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory"
	second := strings.LastIndex(flat, "[0]")
	var got []string
	c.EachAttempt(flat, func(int) bool { return true }, func(at int, r *Report, requested string) {
		if r.Backend != BackendGPU || r.Device != "0" || r.Requested != ParseSizeToken(requested) {
			t.Errorf("attempt at %d: %+v", at, r)
		}
		got = append(got, requested)
	})
	if strings.Join(got, " ") != "63763906560 57387515904" {
		t.Errorf("attempts %q", got)
	}
	if !c.HasAttempt(flat, func(at int) bool { return at == second }) || c.HasAttempt(flat, func(int) bool { return false }) {
		t.Error("HasAttempt does not follow the verdict")
	}
}
