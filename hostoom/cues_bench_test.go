// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"sort"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// BenchmarkCuesPaired is what the kill lines' cues add to the prefilter on
// ordinary lines: Recognizer's against the XLA recogniser's alone
// (pairedOnOrdinary).
func BenchmarkCuesPaired(b *testing.B) {
	pairedOnOrdinary(b, Recognizer().MayContain, oom.MayContain)
}

// BenchmarkTailsPaired is what the tails add to the prefilter on ordinary
// lines (pairedOnOrdinary), tested as the processor does: the last byte
// (MayEndWithTail, inlined), then EndsWithTail.
func BenchmarkTailsPaired(b *testing.B) {
	pass := Recognizer().MayContain
	pairedOnOrdinary(b, func(l string) bool { return pass(l) || MayEndWithTail(l) && EndsWithTail(l) }, pass)
}

// pairedOnOrdinary times with against without in paired rounds over 1,000
// ordinary lines that without and the prefilter pass over (the workload's
// start-up lines pass it on purpose), alternating which goes first, and reports
// the median ratio as x-without (BENCHMARKS.md, "Host-memory kills"); it
// fails if with passes one.
func pairedOnOrdinary(b *testing.B, with, without func(string) bool) {
	cfg := workload.DefaultConfig()
	cfg.OOMFraction = 0
	g := workload.New(cfg)
	lines := make([]string, 0, 1000)
	for len(lines) < cap(lines) {
		if l := g.Line().Text; !without(l) && !Recognizer().MayContain(l) {
			lines = append(lines, l)
		}
	}
	n := 0
	run := func(pass func(string) bool) time.Duration {
		start := time.Now()
		for _, l := range lines {
			if pass(l) {
				n++
			}
		}
		return time.Since(start)
	}
	ratios := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var w, wo time.Duration
		if i%2 == 0 {
			wo, w = run(without), run(with)
		} else {
			w, wo = run(with), run(without)
		}
		ratios = append(ratios, float64(w)/float64(wo))
	}
	sort.Float64s(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-without")
	if n != 0 {
		b.Fatalf("%d ordinary lines passed", n)
	}
}
