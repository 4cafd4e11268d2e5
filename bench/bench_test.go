// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package bench measures xla_oom side by side with the bare minimum and with
// the transform-processor peer of otel-collector.md §4.2, over the same
// deterministic batches, in one `go test -bench` run. See BENCHMARKS.md.
package bench

import (
	"context"
	_ "embed"
	"strings"
	"sync"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor"
	"github.com/xlaoom/xlaoomprocessor/internal/workload"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector"
)

// peerYAML is the processors section of otel-collector.md §4.2, verbatim.
//
//go:embed testdata/peer.yaml
var peerYAML []byte

// poolBatches distinct 1,000-record batches: 16 OOM records, two of each
// message of workload.OOMMessages.
const poolBatches = 16

var (
	batchOnce             sync.Once
	mixedBatches, ordBats []plog.Logs
	sinkInt               int
)

func traffic() (mixed, ordinary []plog.Logs) {
	batchOnce.Do(func() {
		mixedBatches = workload.Batches(workload.DefaultConfig(), poolBatches, workload.DefaultBatchSize)
		c := workload.DefaultConfig()
		c.OOMFraction = 0
		ordBats = workload.Batches(c, poolBatches, workload.DefaultBatchSize)
	})
	return mixedBatches, ordBats
}

// start starts c and stops it when the benchmark ends.
func start(tb testing.TB, c component.Component) {
	tb.Helper()
	if err := c.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := c.Shutdown(context.Background()); err != nil {
			tb.Error(err)
		}
	})
}

// newXLAOOM builds the xla_oom processor with its default config.
func newXLAOOM(tb testing.TB, next consumer.Logs) consumer.Logs {
	tb.Helper()
	f := xlaoomprocessor.NewFactory()
	p, err := f.CreateLogs(context.Background(), processortest.NewNopSettings(f.Type()), f.CreateDefaultConfig(), next)
	if err != nil {
		tb.Fatal(err)
	}
	start(tb, p)
	return p
}

// newPeer builds the transform processor from the §4.2 YAML, as a collector
// would: unmarshal into the factory's default config, validate, create.
func newPeer(tb testing.TB, next consumer.Logs) consumer.Logs {
	tb.Helper()
	ret, err := confmap.NewRetrievedFromYAML(peerYAML)
	if err != nil {
		tb.Fatal(err)
	}
	conf, err := ret.AsConf()
	if err != nil {
		tb.Fatal(err)
	}
	sub, err := conf.Sub("processors::transform/xla_oom")
	if err != nil {
		tb.Fatal(err)
	}
	f := transformprocessor.NewFactory()
	cfg := f.CreateDefaultConfig()
	if err := sub.Unmarshal(cfg); err != nil {
		tb.Fatal(err)
	}
	if err := confmap.Validate(cfg); err != nil {
		tb.Fatal(err)
	}
	p, err := f.CreateLogs(context.Background(), processortest.NewNopSettings(f.Type()), cfg, next)
	if err != nil {
		tb.Fatal(err)
	}
	start(tb, p)
	return p
}

// newConnector builds the xla_oom connector (logs to metrics) with its
// default config and a no-op metrics consumer.
func newConnector(tb testing.TB) consumer.Logs {
	tb.Helper()
	f := xlaoomconnector.NewFactory()
	cfg := f.CreateDefaultConfig().(*xlaoomconnector.Config)
	cfg.RecognizeUntagged = false // it runs after the processor: the documented setting for that pipeline
	c, err := f.CreateLogsToMetrics(context.Background(), connectortest.NewNopSettings(f.Type()), cfg, consumertest.NewNop())
	if err != nil {
		tb.Fatal(err)
	}
	start(tb, c)
	return c
}

// baseline is the bare minimum: visit every record, search its body once.
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

func consume(c consumer.Logs) func(plog.Logs) {
	return func(ld plog.Logs) { _ = c.ConsumeLogs(context.Background(), ld) }
}

// BenchmarkCompare runs every contender over the same batches, interleaved
// (with -count N the whole set runs N times in turn, so slow drifts of a
// shared machine hit all of them alike):
//
//   - baseline: one strings.Contains per record, same pdata iteration;
//   - xla_oom: the processor (factory, processorhelper), next = no-op;
//   - transform_peer: the transform processor with the §4.2 statements;
//   - xla_oom+connector: the processor feeding the xla_oom connector, as in
//     a pipeline whose exporters include the connector;
//   - connector: the connector alone on untagged records (it recognises them
//     itself);
//   - connector_tagged: the connector alone on records the processor tagged
//     (it reads the attributes back).
//
// mixed is the default traffic (0.1 % OOM), ordinary has no OOM record.
func BenchmarkCompare(b *testing.B) {
	mixed, ordinary := traffic()
	for _, w := range []struct {
		name    string
		batches []plog.Logs
	}{{"mixed", mixed}, {"ordinary", ordinary}} {
		b.Run(w.name+"/baseline", func(b *testing.B) { workload.Bench(b, w.batches, baseline) })
		b.Run(w.name+"/xla_oom", func(b *testing.B) {
			workload.Bench(b, w.batches, consume(newXLAOOM(b, consumertest.NewNop())))
		})
		b.Run(w.name+"/transform_peer", func(b *testing.B) {
			workload.Bench(b, w.batches, consume(newPeer(b, consumertest.NewNop())))
		})
		b.Run(w.name+"/xla_oom+connector", func(b *testing.B) {
			workload.Bench(b, w.batches, consume(newXLAOOM(b, newConnector(b))))
		})
		b.Run(w.name+"/connector", func(b *testing.B) {
			workload.Bench(b, w.batches, consume(newConnector(b)))
		})
		b.Run(w.name+"/connector_tagged", func(b *testing.B) {
			tagged := make([]plog.Logs, len(w.batches))
			p := newXLAOOM(b, consumertest.NewNop())
			for i, ld := range w.batches {
				tagged[i] = plog.NewLogs()
				ld.CopyTo(tagged[i])
				_ = p.ConsumeLogs(context.Background(), tagged[i])
			}
			workload.Bench(b, tagged, consume(newConnector(b)))
		})
	}
}

// BenchmarkPaired measures the ratios the targets are stated in, in
// alternating rounds of a few milliseconds (workload.Paired), which a shared,
// noisy machine distorts far less than two separate benchmarks. Run it with a
// fixed round count (-benchtime 200x); its x-base metric is
// contender time / base time:
//
//   - <traffic>/xla_oom_vs_baseline: target <= 1.5 on ordinary records;
//   - <traffic>/peer_vs_xla_oom: the throughput ratio, target >= 10;
//   - <traffic>/connector_overhead: xla_oom+connector vs xla_oom, target <= 1.2.
func BenchmarkPaired(b *testing.B) {
	mixed, ordinary := traffic()
	for _, w := range []struct {
		name    string
		batches []plog.Logs
	}{{"mixed", mixed}, {"ordinary", ordinary}} {
		b.Run(w.name+"/xla_oom_vs_baseline", func(b *testing.B) {
			workload.Paired(b, w.batches, baseline, consume(newXLAOOM(b, consumertest.NewNop())))
		})
		b.Run(w.name+"/peer_vs_xla_oom", func(b *testing.B) {
			workload.Paired(b, w.batches, consume(newXLAOOM(b, consumertest.NewNop())), consume(newPeer(b, consumertest.NewNop())))
		})
		b.Run(w.name+"/peer_vs_baseline", func(b *testing.B) {
			workload.Paired(b, w.batches, baseline, consume(newPeer(b, consumertest.NewNop())))
		})
		b.Run(w.name+"/connector_overhead", func(b *testing.B) {
			workload.Paired(b, w.batches, consume(newXLAOOM(b, consumertest.NewNop())), consume(newXLAOOM(b, newConnector(b))))
		})
	}
}
