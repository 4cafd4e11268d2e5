// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"sort"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// BenchmarkHostCuesPaired is what the host-memory kill cues
// (HostCues) add to MayContain on ordinary lines: the prefilter without
// the cues against the prefilter with them (pairedOnOrdinary).
func BenchmarkHostCuesPaired(b *testing.B) {
	all := defaultRecognizer.prefilterCues()
	with, without := logtext.BuildPrefilter(all), logtext.BuildPrefilter(all[:len(all)-len(HostCues)])
	pairedOnOrdinary(b, with.MayContain, without.MayContain)
}

// BenchmarkHostTailsPaired is what the host tails (EndsWithHostTail) add
// to MayContain on ordinary lines (pairedOnOrdinary).
func BenchmarkHostTailsPaired(b *testing.B) {
	pairedOnOrdinary(b, func(l string) bool { return MayContain(l) || EndsWithHostTail(l) }, MayContain)
}

// pairedOnOrdinary times with against without in paired rounds over 1,000
// ordinary lines (alternating which goes first) and reports the median
// ratio as x-without (BENCHMARKS.md, "Host-memory kills"); it fails if
// either passes an ordinary line.
func pairedOnOrdinary(b *testing.B, with, without func(string) bool) {
	cfg := workload.DefaultConfig()
	cfg.OOMFraction = 0
	g := workload.New(cfg)
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = g.Line().Text
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
