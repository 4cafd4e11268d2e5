// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/oom"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadatatest"
)

// -update rewrites the expected golden files from the current output. Review
// TestGoldenTagged reads records tagged by the processor from their
// attributes. It does not depend on the recogniser: the one tagged body that
// holds an OOM message prints other figures than its tag, and the tag wins.
func TestGoldenTagged(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, createDefaultConfig(), settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
	compareGolden(t, got, "tagged", "cumulative_1.yaml")

	// Two host resources (host a arrives in two ResourceLogs and is merged)
	// plus their job resource for xla.oom.incidents, seven OOM records; the
	// look-alike and the ordinary line are not counted.
	assert.Equal(t, 3, got.ResourceMetrics().Len())
	assert.Equal(t, int64(7), sumErrors(got))
}

// TestGoldenTemporality feeds two batches with an emission after each, then
// emits once more with no new data.
func TestGoldenTemporality(t *testing.T) {
	forEachTemporality(t, func(t *testing.T, cfg *Config) {
		temporality := cfg.AggregationTemporality
		sink := new(consumertest.MetricsSink)
		c, clk := newTestConnector(t, cfg, settings(), sink)

		first := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
		compareGolden(t, first, "tagged", temporality+"_1.yaml")
		clk.Add(cfg.EmitInterval)
		second := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input2.yaml"))
		compareGolden(t, second, "tagged", temporality+"_2.yaml")
		clk.Add(cfg.EmitInterval)

		require.NoError(t, c.emit(context.Background()))
		if temporality == TemporalityCumulative {
			// Every live series again, same values and starts, at a later
			// time, so the backend keeps it.
			require.Len(t, sink.AllMetrics(), 3)
			third := sink.AllMetrics()[2]
			require.NoError(t, pmetrictest.CompareMetrics(second, third, pmetrictest.IgnoreTimestamp(),
				pmetrictest.IgnoreMetricsOrder(), pmetrictest.IgnoreMetricDataPointsOrder()))
			assertLaterPoints(t, second, third)
			assert.Equal(t, int64(9), sumErrors(second))
		} else {
			// Nothing new, nothing sent.
			require.Len(t, sink.AllMetrics(), 2)
			assert.Equal(t, int64(7), sumErrors(first))
			assert.Equal(t, int64(2), sumErrors(second))
		}
	})
}

// TestGoldenUntagged recognises real messages itself. It needs the
// recogniser of package oom.
func TestGoldenUntagged(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, createDefaultConfig(), settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "untagged", "input.yaml"))
	compareGolden(t, got, "untagged", "cumulative.yaml")
	// Six OOM records (body, exception.message, map body), the look-alike and
	// the ordinary lines are not counted.
	assert.Equal(t, int64(6), sumErrors(got))
	assert.Equal(t, 3+2, got.ResourceMetrics().Len(), "three hosts and two jobs (incidents)")
}

func TestGoldenDimensions(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.Dimensions = []string{"xla.program.name", "xla.backend", "xla.memory.space"}
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
	compareGolden(t, got, "tagged", "dimensions.yaml")
	assert.Equal(t, int64(7), sumErrors(got))
}

func TestGoldenOverflow(t *testing.T) {
	tt := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tt.Shutdown(context.Background())) })
	set := connectortest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tt.NewTelemetrySettings()

	cfg := createDefaultConfig()
	cfg.SeriesLimit = 2
	cfg.Metrics.XlaOomIncidents.Enabled = false // incidents are bounded by their own dedup set
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, set, sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
	compareGolden(t, got, "tagged", "overflow.yaml")
	// Nothing is dropped: the overflow series hold the rest.
	assert.Equal(t, int64(7), sumErrors(got))

	// With two series per metric, host a fills them first:
	// errors: host b's E0101, E0100 (fragmentation) and E0007 records -> 3;
	// requested: host b's E0100 -> 1; shortfall: host b's E0101 -> 1;
	// pressure: host b's E0101 and E0100 -> 2.
	overflow := map[string]int{}
	forEachMetric(got, func(res pcommon.Resource, m pmetric.Metric) {
		var attrs []pcommon.Map
		switch m.Type() {
		case pmetric.MetricTypeSum:
			for _, dp := range m.Sum().DataPoints().All() {
				attrs = append(attrs, dp.Attributes())
			}
		case pmetric.MetricTypeGauge:
			for _, dp := range m.Gauge().DataPoints().All() {
				attrs = append(attrs, dp.Attributes())
			}
		case pmetric.MetricTypeHistogram:
			for _, dp := range m.Histogram().DataPoints().All() {
				attrs = append(attrs, dp.Attributes())
			}
		default:
		}
		for _, a := range attrs {
			if _, ok := a.Get(overflowAttribute); ok {
				overflow[m.Name()]++
				assert.Equal(t, map[string]any{overflowAttribute: true}, a.AsRaw())
				assert.Equal(t, 0, res.Attributes().Len(), "the overflow series has no resource of its own")
			}
		}
	})
	assert.Equal(t, map[string]int{
		"xla.oom.errors": 1, "xla.oom.requested.size": 1, "xla.oom.shortfall.size": 1, "xla.oom.pressure": 1,
	}, overflow, "one overflow series per metric")
	metadatatest.AssertEqualConnectorXlaOomOverflowDataPoints(t, tt,
		[]metricdata.DataPoint[int64]{{Value: 3 + 1 + 1 + 2}}, metricdatatest.IgnoreTimestamp())
	// 2 series per metric and one overflow series each.
	metadatatest.AssertEqualConnectorXlaOomSeries(t, tt,
		[]metricdata.DataPoint[int64]{{Value: 4*2 + 4}}, metricdatatest.IgnoreTimestamp())
}

// sumErrors adds up every xla.oom.errors point.
func sumErrors(md pmetric.Metrics) int64 {
	var n int64
	forEachMetric(md, func(_ pcommon.Resource, m pmetric.Metric) {
		if m.Name() == "xla.oom.errors" {
			for _, dp := range m.Sum().DataPoints().All() {
				n += dp.IntValue()
			}
		}
	})
	return n
}

func forEachMetric(md pmetric.Metrics, f func(pcommon.Resource, pmetric.Metric)) {
	for _, rm := range md.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				f(rm.Resource(), m)
			}
		}
	}
}

// TestTaggedEqualsUntagged tags the untagged input the way the processor does
// and checks that the connector counts the same either way. It needs the
// recogniser of package oom.
func TestTaggedEqualsUntagged(t *testing.T) {
	cfg := createDefaultConfig()
	finder := oomrecord.NewFinder(cfg.Sources)
	tagged := readLogs(t, "untagged", "input.yaml")
	n := 0
	for _, rl := range tagged.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				if found := finder.Find(lr, false); found.Found == oom.FoundReport {
					oomattr.Put(found.Report, lr.Attributes())
					lr.Body().SetStr("train step failed") // nothing left to recognise
					lr.Attributes().Remove("exception.message")
					n++
				}
			}
		}
	}
	require.Equal(t, 6, n)

	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	got := consumeAndEmit(t, c, sink, tagged)
	compareGolden(t, got, "untagged", "cumulative.yaml")
}

// TestIgnoresOrdinaryLogs: no XLA OOM, no series, nothing sent.
func TestIgnoresOrdinaryLogs(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, createDefaultConfig(), settings(), sink)
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	lrs.AppendEmpty().Body().SetStr("step 1200 loss=2.38")
	lrs.AppendEmpty().Body().SetStr("grpc: received message larger than max (8388621 vs. 4194304): rpc error: code = ResourceExhausted desc = RESOURCE_EXHAUSTED")
	lrs.AppendEmpty().Attributes().PutStr("xla.error.code", "") // an empty code is no tag
	ld.MarkReadOnly()
	require.NoError(t, c.ConsumeLogs(context.Background(), ld))
	require.NoError(t, c.emit(context.Background()))
	assert.Empty(t, sink.AllMetrics())
	assert.Zero(t, c.state.size())
}

func TestInputUnchanged(t *testing.T) {
	for _, input := range [][]string{{"tagged", "input.yaml"}, {"untagged", "input.yaml"}} {
		ld := readLogs(t, input...)
		want := plog.NewLogs()
		ld.CopyTo(want)
		sink := new(consumertest.MetricsSink)
		c, _ := newTestConnector(t, createDefaultConfig(), settings(), sink)
		assert.False(t, c.Capabilities().MutatesData)
		consumeAndEmit(t, c, sink, ld) // marks ld read-only: a write would panic
		require.NoError(t, plogtest.CompareLogs(want, ld))
	}
}

// TestConcurrent consumes from many goroutines while the ticker and a second
// goroutine emit. Run with -race. Nothing may be lost or counted twice.
func TestConcurrent(t *testing.T) {
	const goroutines, batches = 16, 25
	forEachTemporality(t, func(t *testing.T, cfg *Config) {
		temporality := cfg.AggregationTemporality
		cfg.EmitInterval = minEmitInterval
		cfg.SeriesExpiry = time.Hour
		if temporality == TemporalityDelta {
			// Series expire between ticks: only unsent data keeps one alive.
			cfg.SeriesExpiry = cfg.EmitInterval
		}
		sink := new(consumertest.MetricsSink)
		c, err := NewFactory().CreateLogsToMetrics(context.Background(), settings(), cfg, sink)
		require.NoError(t, err)
		require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))

		inputs := []plog.Logs{readLogs(t, "tagged", "input.yaml"), readLogs(t, "untagged", "input.yaml")}
		for _, in := range inputs {
			in.MarkReadOnly() // shared by every goroutine
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					assert.NoError(t, c.(*xlaOOMConnector).emit(context.Background()))
				}
			}
		}()
		var consumers sync.WaitGroup
		for g := range goroutines {
			consumers.Add(1)
			go func() {
				defer consumers.Done()
				for range batches {
					assert.NoError(t, c.ConsumeLogs(context.Background(), inputs[g%2]))
				}
			}()
		}
		consumers.Wait()
		close(stop)
		wg.Wait()
		require.NoError(t, c.Shutdown(context.Background()))

		all := sink.AllMetrics()
		require.NotEmpty(t, all)
		perInput := int64(goroutines / 2 * batches)
		want := perInput*7 + perInput*6 // 7 tagged, 6 recognised OOM records per input
		if temporality == TemporalityDelta {
			var got int64
			for _, md := range all {
				got += sumErrors(md)
			}
			assert.Equal(t, want, got, "the deltas add up to every record")
		} else {
			assert.Equal(t, want, sumErrors(all[len(all)-1]), "the last cumulative values hold every record")
		}
	})
}

// TestTaggedOnly: with recognize_untagged false (the connector after the
// processor), an untagged record is ignored even when it holds an OOM, and a
// tagged one is counted as always.
func TestTaggedOnly(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.RecognizeUntagged = false
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	require.NoError(t, c.ConsumeLogs(context.Background(), readLogs(t, "untagged", "input.yaml")))
	require.NoError(t, c.emit(context.Background()))
	assert.Empty(t, sink.AllMetrics(), "nothing in the untagged input is counted")

	sink = new(consumertest.MetricsSink)
	c, _ = newTestConnector(t, cfg, settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
	assert.Equal(t, int64(7), sumErrors(got))
}

// splitEndMarkers separates the points flagged NoRecordedValue (the end of an
// expired series) from the others.
func splitEndMarkers(md pmetric.Metrics) (live, ends pmetric.Metrics) {
	live, ends = pmetric.NewMetrics(), pmetric.NewMetrics()
	md.CopyTo(live)
	md.CopyTo(ends)
	keep := func(md pmetric.Metrics, wantEnd bool) {
		for _, rm := range md.ResourceMetrics().All() {
			for _, sm := range rm.ScopeMetrics().All() {
				sm.Metrics().RemoveIf(func(m pmetric.Metric) bool {
					drop := func(f pmetric.DataPointFlags) bool { return f.NoRecordedValue() != wantEnd }
					switch m.Type() {
					case pmetric.MetricTypeSum:
						m.Sum().DataPoints().RemoveIf(func(dp pmetric.NumberDataPoint) bool { return drop(dp.Flags()) })
					case pmetric.MetricTypeGauge:
						m.Gauge().DataPoints().RemoveIf(func(dp pmetric.NumberDataPoint) bool { return drop(dp.Flags()) })
					case pmetric.MetricTypeHistogram:
						m.Histogram().DataPoints().RemoveIf(func(dp pmetric.HistogramDataPoint) bool { return drop(dp.Flags()) })
					default:
					}
					return pointCount(m) == 0
				})
			}
			rm.ScopeMetrics().RemoveIf(func(sm pmetric.ScopeMetrics) bool { return sm.Metrics().Len() == 0 })
		}
		md.ResourceMetrics().RemoveIf(func(rm pmetric.ResourceMetrics) bool { return rm.ScopeMetrics().Len() == 0 })
	}
	keep(live, false)
	keep(ends, true)
	return live, ends
}

func pointCount(m pmetric.Metric) int {
	switch m.Type() {
	case pmetric.MetricTypeSum:
		return m.Sum().DataPoints().Len()
	case pmetric.MetricTypeGauge:
		return m.Gauge().DataPoints().Len()
	case pmetric.MetricTypeHistogram:
		return m.Histogram().DataPoints().Len()
	default:
		return 0
	}
}

// TestTaggedOnlyIgnoresABadTag: with recognize_untagged false, a record whose
// xla.error.code is not a string is no tag, and its text is not read.
func TestTaggedOnlyIgnoresABadTag(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.RecognizeUntagged = false
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.Body().SetStr("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1477187472 bytes.")
	lr.Attributes().PutInt(oomattr.ErrorCode, 100)
	require.NoError(t, c.ConsumeLogs(context.Background(), ld))
	require.NoError(t, c.emit(context.Background()))
	assert.Empty(t, sink.AllMetrics())
}
