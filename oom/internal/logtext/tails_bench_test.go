// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"sort"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
)

// mayContainBefore is MayContain as it was before the tail cues: the one
// pass alone (the per-key path for short texts, which reads the tails).
func (p *Prefilter) mayContainBefore(text string) bool {
	if len(text) >= MinOnePassLen {
		if from := p.keys.firstStep(text); from >= 0 {
			return p.confirmFrom(text, from)
		}
		return false
	}
	return p.MayContainPerKey(text)
}

// BenchmarkTailsCodePaired is what the tail cues' code costs MayContain on
// ordinary lines, in one binary: paired rounds over 1,000 lines of MayContain
// and of mayContainBefore (alternating which goes first), on one prefilter
// with the status cues, a family's and the host tails, reported as the median ratio
// x-before (BENCHMARKS.md, "Host-memory kills").
func BenchmarkTailsCodePaired(b *testing.B) {
	cues := append([]Cue{{Text: "allocate", SizeAfter: true}, {Text: "request for", SizeAfter: true},
		{Text: "BufferAssignment OOM"}, {Text: "memory allocating"}}, StatusCues...)
	p := BuildPrefilter(cues, " OOM Killed.", "out-of-memory handler.", " cgroup.", ": Out Of Memory",
		"with reclaim activity", "by the OOM killer.", " in this unit.",
		`resourceName="memory"`, "to reclaim memory", "consumption of memory.", "VmRSS # MiB")
	cfg := workload.DefaultConfig()
	cfg.OOMFraction = 0
	g := workload.New(cfg)
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = g.Line().Text
	}
	n := 0
	run := func(may func(string) bool) time.Duration {
		start := time.Now()
		for _, l := range lines {
			if may(l) {
				n++
			}
		}
		return time.Since(start)
	}
	now, before := p.MayContain, p.mayContainBefore
	ratios := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var w, wo time.Duration
		if i%2 == 0 {
			wo, w = run(before), run(now)
		} else {
			w, wo = run(now), run(before)
		}
		ratios = append(ratios, float64(w)/float64(wo))
	}
	sort.Float64s(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-before")
	if n != 0 {
		b.Fatalf("%d ordinary lines passed the prefilter", n)
	}
}
