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
// (HostCues) add to MayContain on ordinary lines: paired rounds
// over 1,000 lines, the prefilter without the cues then with them
// (alternating which goes first), reported as the median ratio x-without
// (BENCHMARKS.md, "Host-memory kills").
func BenchmarkHostCuesPaired(b *testing.B) {
	all := defaultRecognizer.prefilterCues()
	with, without := logtext.BuildPrefilter(all), logtext.BuildPrefilter(all[:len(all)-len(HostCues)])
	cfg := workload.DefaultConfig()
	cfg.OOMFraction = 0
	g := workload.New(cfg)
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = g.Line().Text
	}
	n := 0
	run := func(p *logtext.Prefilter) time.Duration {
		start := time.Now()
		for _, l := range lines {
			if p.MayContain(l) {
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
			wo, w = run(&without), run(&with)
		} else {
			w, wo = run(&with), run(&without)
		}
		ratios = append(ratios, float64(w)/float64(wo))
	}
	sort.Float64s(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-without")
	if n != 0 {
		b.Fatalf("%d ordinary lines passed the prefilter", n)
	}
}

// BenchmarkHostTailsPaired is what the host tails (EndsWithHostTail) add
// to MayContain on ordinary lines: BenchmarkHostCuesPaired's rounds,
// MayContain alone then with the tails too.
func BenchmarkHostTailsPaired(b *testing.B) {
	cfg := workload.DefaultConfig()
	cfg.OOMFraction = 0
	g := workload.New(cfg)
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = g.Line().Text
	}
	n := 0
	run := func(tails bool) time.Duration {
		start := time.Now()
		for _, l := range lines {
			if MayContain(l) || tails && EndsWithHostTail(l) {
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
			wo, w = run(false), run(true)
		} else {
			w, wo = run(true), run(false)
		}
		ratios = append(ratios, float64(w)/float64(wo))
	}
	sort.Float64s(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-without")
	if n != 0 {
		b.Fatalf("%d ordinary lines passed the prefilter", n)
	}
}
