// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/internal/workload"
)

// BenchmarkHostHooksPaired is what the host-memory kill hooks
// (processor_hostkill.go: the map-body check after the prefilter, the
// taggedHost branch of the loop) add to the processor's record loop on
// ordinary and mixed traffic: paired rounds (workload.Paired) of the loop
// as it was before them (noHostLoop, below) and processLogs, over the same
// batches, in one binary. The prefilter's host cues are in both; their own
// cost is BenchmarkHostCuesPaired (package oom). Run with -benchtime 200x;
// x-base is processLogs / the loop without the hooks.
func BenchmarkHostHooksPaired(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  workload.Config
	}{{"ordinary", ordinaryConfig()}, {"mixed", mixedConfig()}} {
		b.Run(tc.name, func(b *testing.B) {
			tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
			if err != nil {
				b.Fatal(err)
			}
			base, hooks := newTestProcessor(createDefaultConfig(), tb), newTestProcessor(createDefaultConfig(), tb)
			workload.Paired(b, batches(tc.cfg),
				func(ld plog.Logs) { base.noHostLoop(context.Background(), ld) },
				func(ld plog.Logs) { _, _ = hooks.processLogs(context.Background(), ld) })
		})
	}
}

// noHostLoop is processLogs without the host-kill hooks, as it was before
// them: the reference of BenchmarkHostHooksPaired.
func (p *logsProcessor) noHostLoop(ctx context.Context, ld plog.Logs) {
	var scanned, generic int64
	var tagged codeCounts
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		res := rls.At(i).Resource().Attributes()
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			scanned += int64(lrs.Len())
			for k := 0; k < lrs.Len(); k++ {
				if label, t := p.noHostTag(res, lrs.At(k)); t != untouched {
					tagged.add(label, t == taggedWarning)
					if t == taggedGeneric {
						generic++
					}
				}
			}
		}
	}
	p.telemetry.ProcessorXlaOomRecordsScanned.Add(ctx, scanned)
	if generic > 0 {
		p.telemetry.ProcessorXlaOomRecordsGeneric.Add(ctx, generic)
	}
	sinkInt = len(tagged.counts)
}

func (p *logsProcessor) noHostTag(res pcommon.Map, lr plog.LogRecord) (string, tagging) {
	var texts oomrecord.Candidates
	if !p.finder.Scan(lr, &texts) {
		return "", untouched
	}
	return p.tagCandidate(res, lr, &texts)
}
