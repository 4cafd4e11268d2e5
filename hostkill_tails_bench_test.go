// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
)

// BenchmarkProcessorTailsPaired is what host_kill_tails costs ordinary
// records: the processor with it on against the processor with it off, in
// paired rounds in one binary, both over the very same batches (ordinary
// records are not written on), alternating which goes first; the median of
// the per-round ratios is "x-off" (BENCHMARKS.md, "Host kills by default").
// Use a fixed round count, e.g. -benchtime 200x.
func BenchmarkProcessorTailsPaired(b *testing.B) {
	build := func(tails bool) func(plog.Logs) {
		cfg := createDefaultConfig()
		cfg.HostKillTails = tails
		p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
		if err != nil {
			b.Fatal(err)
		}
		return func(ld plog.Logs) { _ = p.ConsumeLogs(context.Background(), ld) }
	}
	on, off := build(true), build(false)
	bs := batches(ordinaryConfig())
	pass := func(f func(plog.Logs)) time.Duration {
		start := time.Now()
		for _, ld := range bs {
			f(ld)
		}
		return time.Since(start)
	}
	pass(on) // the start-up lines' facts, read once by each
	pass(off)
	ratios := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var w, wo time.Duration
		if i%2 == 0 {
			wo, w = pass(off), pass(on)
		} else {
			w, wo = pass(on), pass(off)
		}
		ratios = append(ratios, w.Seconds()/wo.Seconds())
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-off")
}
