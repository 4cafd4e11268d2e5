// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

// Processor benchmarks. The side-by-side comparison with the transform
// processor peer and the connector lives in the bench/ module (its own go.mod,
// so the component module does not inherit contrib's dependencies); see
// BENCHMARKS.md for the commands and the figures.
//
//	go test -run '^$' -bench . -benchmem -count 6 . | tee new.txt

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/workload"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// poolBatches is the number of distinct 1,000-record batches a benchmark
// cycles through: 16 batches hold 16 OOM records, two of each message of
// workload.OOMMessages, so a batch figure averages over every family.
const poolBatches = 16

var (
	sinkBool   bool
	sinkReport oom.Report
	sinkInt    int
)

var batchCache sync.Map // OOM fraction -> []plog.Logs

// batches returns the pool batches of cfg, generated once per process.
func batches(cfg workload.Config) []plog.Logs {
	if v, ok := batchCache.Load(cfg.OOMFraction); ok {
		return v.([]plog.Logs)
	}
	bs := workload.Batches(cfg, poolBatches, workload.DefaultBatchSize)
	batchCache.Store(cfg.OOMFraction, bs)
	return bs
}

func mixedConfig() workload.Config { return workload.DefaultConfig() }

func ordinaryConfig() workload.Config {
	c := workload.DefaultConfig()
	c.OOMFraction = 0
	return c
}

// newBenchProcessor builds the processor the way a collector does (factory,
// processorhelper, no-op telemetry) with a no-op next consumer.
func newBenchProcessor(tb testing.TB) processor.Logs {
	tb.Helper()
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type),
		createDefaultConfig(), consumertest.NewNop())
	if err != nil {
		tb.Fatal(err)
	}
	if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p
}

// baseline is the bare minimum a tagging processor must do: visit every record
// of the batch and search its body once.
func baseline(ld plog.Logs) {
	n := 0
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				if strings.Contains(lrs.At(k).Body().Str(), "RESOURCE_EXHAUSTED") {
					n++
				}
			}
		}
	}
	sinkInt = n
}

// BenchmarkBaselineContains is the yardstick: one strings.Contains per record
// over the same batches as BenchmarkProcessorBatch.
func BenchmarkBaselineContains(b *testing.B) { workload.Bench(b, batches(mixedConfig()), baseline) }

// BenchmarkBaselineContainsOrdinaryOnly is the yardstick for
// BenchmarkProcessorOrdinaryOnly.
func BenchmarkBaselineContainsOrdinaryOnly(b *testing.B) {
	workload.Bench(b, batches(ordinaryConfig()), baseline)
}

// BenchmarkProcessorBatch is the processor as a collector runs it, on the
// default traffic (1,000 records, 0.1 % OOM).
func BenchmarkProcessorBatch(b *testing.B) {
	p := newBenchProcessor(b)
	workload.Bench(b, batches(mixedConfig()), func(ld plog.Logs) { _ = p.ConsumeLogs(context.Background(), ld) })
}

// BenchmarkProcessorOrdinaryOnly is BenchmarkProcessorBatch with no OOM
// record: the cost every ordinary record pays.
func BenchmarkProcessorOrdinaryOnly(b *testing.B) {
	p := newBenchProcessor(b)
	workload.Bench(b, batches(ordinaryConfig()), func(ld plog.Logs) { _ = p.ConsumeLogs(context.Background(), ld) })
}

// BenchmarkProcessorBatchSize shows that what the processor allocates per
// batch does not grow with the batch: ordinary records allocate nothing, so
// B/op and allocs/op are the same for 100 and 10,000 records.
func BenchmarkProcessorBatchSize(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("ordinary/%d", n), func(b *testing.B) {
			p := newBenchProcessor(b)
			bs := workload.Batches(ordinaryConfig(), 4, n)
			workload.Bench(b, bs, func(ld plog.Logs) { _ = p.ConsumeLogs(context.Background(), ld) })
		})
	}
}

// BenchmarkProcessorLoop is the record loop alone (processLogs without
// processorhelper), to separate the per-batch overhead of the helper.
func BenchmarkProcessorLoop(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  workload.Config
	}{{"mixed", mixedConfig()}, {"ordinary", ordinaryConfig()}} {
		b.Run(tc.name, func(b *testing.B) {
			tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
			if err != nil {
				b.Fatal(err)
			}
			p := newTestProcessor(createDefaultConfig(), tb)
			workload.Bench(b, batches(tc.cfg), func(ld plog.Logs) { _, _ = p.processLogs(context.Background(), ld) })
		})
	}
}

// BenchmarkRecognizeOrdinary is the recogniser's cost on an ordinary line:
// the prefilter, and the full recogniser only where the prefilter says maybe.
func BenchmarkRecognizeOrdinary(b *testing.B) {
	g := workload.New(ordinaryConfig())
	lines := make([]string, 4096)
	for i := range lines {
		lines[i] = g.Line().Text
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := lines[i%len(lines)]
		if oom.MayContain(t) {
			sinkReport, sinkBool = oom.Recognize(t)
		}
	}
}

// BenchmarkProcessorOOMRecord is the whole cost of one OOM record through the
// processor (find, recognise, write the attributes), per family: a pool of
// one-record batches, restored between rounds like the 1,000-record pools.
func BenchmarkProcessorOOMRecord(b *testing.B) {
	for _, m := range workload.OOMMessages {
		b.Run(shape(m)+"/"+m.Family, func(b *testing.B) {
			bs := make([]plog.Logs, 64)
			for i := range bs {
				bs[i] = plog.NewLogs()
				lr := bs[i].ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
				lr.Body().SetStr(m.Text)
				lr.Attributes().PutStr("log.file.name", "/var/log/pods/ml-training_trainer-0/main/0.log")
			}
			tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
			if err != nil {
				b.Fatal(err)
			}
			p := newTestProcessor(createDefaultConfig(), tb)
			workload.Bench(b, bs, func(ld plog.Logs) { _, _ = p.processLogs(context.Background(), ld) })
		})
	}
}

func shape(m workload.Message) string {
	if m.MultiLine {
		return "multi-line"
	}
	return "one-line"
}

// TestBenchmarkWorkload checks what the benchmarks rely on: every OOM message
// of the workload is tagged with its code, no ordinary line is, and a pool
// restores processed batches to their original state.
func TestBenchmarkWorkload(t *testing.T) {
	for _, m := range workload.OOMMessages {
		r, ok := oom.Recognize(m.Text)
		if !oom.MayContain(m.Text) || !ok || r.Code != m.Code {
			t.Errorf("%s: MayContain=%v Recognize ok=%v code=%q, want %s", m.Family, oom.MayContain(m.Text), ok, r.Code, m.Code)
		}
	}
	g := workload.New(ordinaryConfig())
	for i := 0; i < 20000; i++ {
		l := g.Line().Text
		if _, ok := oom.Recognize(l); ok {
			t.Errorf("ordinary line recognised as an OOM: %s", l)
		}
	}

	p := newBenchProcessor(t)
	bs := batches(mixedConfig())
	pool := workload.NewPool(bs)
	if n := pool.Track(func(ld plog.Logs) { _ = p.ConsumeLogs(context.Background(), ld) }); n != poolBatches {
		t.Fatalf("the processor modified %d records of %d batches, want one per batch", n, poolBatches)
	}
	for round := 0; round < 2; round++ {
		for i := 0; i < pool.Len(); i++ {
			if err := p.ConsumeLogs(context.Background(), pool.At(i)); err != nil {
				t.Fatal(err)
			}
			tagged := 0
			for j := 0; j < pool.At(i).ResourceLogs().Len(); j++ {
				lrs := pool.At(i).ResourceLogs().At(j).ScopeLogs().At(0).LogRecords()
				for k := 0; k < lrs.Len(); k++ {
					if oomattr.Tagged(lrs.At(k).Attributes()) && lrs.At(k).EventName() != oomattr.EventFailure {
						tagged++
					}
				}
			}
			if tagged != 1 {
				t.Fatalf("round %d batch %d: %d tagged records, want 1", round, i, tagged)
			}
		}
		pool.Restore()
		for i := 0; i < pool.Len(); i++ {
			if !workload.Equal(pool.At(i), bs[i]) {
				t.Fatalf("round %d: batch %d not restored", round, i)
			}
		}
	}
}

// BenchmarkProcessorStartupLines is a batch of 1,000 start-up lines (XLA's
// pool line and device line, alternating over 8 devices): what a record the
// prefilter passes for a start-up cue costs, read into its stream's process.
func BenchmarkProcessorStartupLines(b *testing.B) {
	p := newBenchProcessor(b)
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "trainer")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for i := range 1000 {
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Unix(1764000000, 0)))
		lr.Attributes().PutStr("log.file.name", "/var/log/pods/ml_trainer-0/main/0.log")
		line := fmt.Sprintf("2026-11-22 10:02:04.001099: I external/xla/xla/pjrt/gpu/gpu_helpers.cc:136] XLA backend allocating %d bytes on device %d for BFCAllocator.", 16000000000+i*12345, i%8)
		if i%2 == 1 {
			line = fmt.Sprintf("2026-11-22 10:02:04.001099: I external/xla/xla/service/service.cc:176]   StreamExecutor device (%d): NVIDIA H100 80GB HBM3, Compute Capability 9.0", i%8)
		}
		lr.Body().SetStr(line)
	}
	b.ResetTimer()
	for range b.N {
		_ = p.ConsumeLogs(context.Background(), ld)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/record")
}
