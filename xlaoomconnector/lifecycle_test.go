// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadatatest"
)

func TestExpiry(t *testing.T) {
	tt := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tt.Shutdown(context.Background())) })
	cfg := createDefaultConfig()
	cfg.EmitInterval = 30 * time.Second
	cfg.SeriesExpiry = 2 * time.Minute
	sink := new(consumertest.MetricsSink)
	cfg.Metrics.XlaOomIncidents.Enabled = false // this test counts per-host series only
	c, clk := newTestConnector(t, cfg, metadatatest.NewSettings(tt), sink)

	first := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
	assert.Equal(t, 2, first.ResourceMetrics().Len())
	// host a: 2 errors, 1 requested, 2 shortfall, 2 pressure series; host b: 3, 2, 1, 2.
	assert.Equal(t, int64(7+8), c.state.size())

	// One minute later only host a reports again (all of its series).
	clk.Add(time.Minute)
	consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input2.yaml"))

	// Host b's series are now 2m30s old, host a's 1m30s: host b goes.
	clk.Add(90 * time.Second)
	third := consumeAndEmit(t, c, sink)
	live, ends := splitEndMarkers(third)
	require.Equal(t, 1, live.ResourceMetrics().Len())
	host, _ := live.ResourceMetrics().At(0).Resource().Attributes().Get("host.name")
	assert.Equal(t, "tpu-host-a", host.Str())
	assert.Equal(t, int64(4+2), sumErrors(live), "cumulative values of the kept series are intact")
	assert.Equal(t, 8, ends.DataPointCount(), "one end marker per expired series of host b")
	for _, rm := range ends.ResourceMetrics().All() {
		host, _ := rm.Resource().Attributes().Get("host.name")
		assert.Equal(t, "tpu-host-b", host.Str())
	}
	metadatatest.AssertEqualConnectorXlaOomSeriesExpired(t, tt,
		[]metricdata.DataPoint[int64]{{Value: 8}}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualConnectorXlaOomSeries(t, tt,
		[]metricdata.DataPoint[int64]{{Value: 7}}, metricdatatest.IgnoreTimestamp())

	// Host b comes back: its counters continue from their retired values,
	// so a backend that still holds them sees them rise.
	clk.Add(30 * time.Second)
	fourth := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
	assert.Equal(t, int64(6+4+3+3), sumErrors(fourth), "host a: 6 + 4 more; host b: 3 + 3 more")

	// Everything expires once nothing is reported: end markers, then nothing.
	clk.Add(cfg.SeriesExpiry)
	live, _ = splitEndMarkers(consumeAndEmit(t, c, sink))
	assert.Zero(t, live.DataPointCount())
	before := len(sink.AllMetrics())
	clk.Add(cfg.EmitInterval)
	require.NoError(t, c.emit(context.Background()))
	assert.Len(t, sink.AllMetrics(), before, "nothing left to send")
	assert.Zero(t, c.state.size())
	assert.Empty(t, c.state.resources)
}

// TestExpiryKeepsUnsentData: a series is never expired before its data was
// sent, whatever its age.
func TestExpiryKeepsUnsentData(t *testing.T) {
	forEachTemporality(t, func(t *testing.T, cfg *Config) {
		temporality := cfg.AggregationTemporality
		sink := new(consumertest.MetricsSink)
		c, clk := newTestConnector(t, cfg, settings(), sink)
		require.NoError(t, c.ConsumeLogs(context.Background(), readLogs(t, "tagged", "input.yaml")))
		clk.Add(10 * cfg.SeriesExpiry)
		got := consumeAndEmit(t, c, sink)
		assert.Equal(t, int64(7), sumErrors(got))
		clk.Add(cfg.SeriesExpiry)
		require.NoError(t, c.emit(context.Background()))
		if temporality == TemporalityCumulative {
			require.Len(t, sink.AllMetrics(), 2, "sent once, then its end")
			live, ends := splitEndMarkers(sink.AllMetrics()[1])
			assert.Zero(t, live.DataPointCount())
			assert.Equal(t, got.DataPointCount(), ends.DataPointCount())
		} else {
			assert.Len(t, sink.AllMetrics(), 1, "sent once, then expired")
		}
		assert.Zero(t, c.state.size())
	})
}

// TestShutdownFlushes: what was counted since the last tick is sent on shutdown.
func TestShutdownFlushes(t *testing.T) {
	forEachTemporality(t, func(t *testing.T, cfg *Config) {
		temporality := cfg.AggregationTemporality
		cfg.EmitInterval = time.Hour
		cfg.SeriesExpiry = time.Hour
		sink := new(consumertest.MetricsSink)
		c, _ := newTestConnector(t, cfg, settings(), sink)
		require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
		require.NoError(t, c.ConsumeLogs(context.Background(), readLogs(t, "tagged", "input.yaml")))
		assert.Empty(t, sink.AllMetrics(), "nothing before the first tick")
		require.NoError(t, c.Shutdown(context.Background()))
		require.Len(t, sink.AllMetrics(), 1)
		compareGolden(t, sink.AllMetrics()[0], "tagged", temporality+"_1.yaml")
	})
}

func TestShutdownReturnsSendError(t *testing.T) {
	c, _ := newTestConnector(t, createDefaultConfig(), settings(), new(consumertest.MetricsSink))
	c.next = consumertest.NewErr(errors.New("backend down"))
	require.NoError(t, c.ConsumeLogs(context.Background(), readLogs(t, "tagged", "input.yaml")))
	require.EqualError(t, c.Shutdown(context.Background()), "backend down")
}

func TestEmitsOnInterval(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.EmitInterval = minEmitInterval
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, c.ConsumeLogs(context.Background(), readLogs(t, "tagged", "input.yaml")))
	require.Eventually(t, func() bool { return len(sink.AllMetrics()) >= 2 }, 5*time.Second, 5*time.Millisecond,
		"cumulative series are sent on every tick")
	require.NoError(t, c.Shutdown(context.Background()))
	all := sink.AllMetrics()
	assert.Equal(t, int64(7), sumErrors(all[len(all)-1]))
}
