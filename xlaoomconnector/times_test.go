// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// point is one data point reduced to what the data model constrains.
type point struct {
	start, time pcommon.Timestamp
	end         bool // flagged NoRecordedValue
}

// pointsBySeries returns the points of md keyed by resource, metric and
// attributes.
func pointsBySeries(md pmetric.Metrics) map[string]point {
	out := map[string]point{}
	for _, rm := range md.ResourceMetrics().All() {
		res := fmt.Sprint(rm.Resource().Attributes().AsRaw())
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				add := func(attrs pcommon.Map, p point) {
					out[res+"|"+m.Name()+"|"+fmt.Sprint(attrs.AsRaw())] = p
				}
				switch m.Type() {
				case pmetric.MetricTypeSum:
					for _, dp := range m.Sum().DataPoints().All() {
						add(dp.Attributes(), point{dp.StartTimestamp(), dp.Timestamp(), dp.Flags().NoRecordedValue()})
					}
				case pmetric.MetricTypeGauge:
					for _, dp := range m.Gauge().DataPoints().All() {
						add(dp.Attributes(), point{dp.StartTimestamp(), dp.Timestamp(), dp.Flags().NoRecordedValue()})
					}
				case pmetric.MetricTypeHistogram:
					for _, dp := range m.Histogram().DataPoints().All() {
						add(dp.Attributes(), point{dp.StartTimestamp(), dp.Timestamp(), dp.Flags().NoRecordedValue()})
					}
				default:
				}
			}
		}
	}
	return out
}

// assertLaterPoints checks that every series of next that was in prev has a
// later point, and that start <= time everywhere.
func assertLaterPoints(t *testing.T, prev, next pmetric.Metrics) {
	t.Helper()
	before := pointsBySeries(prev)
	for k, p := range pointsBySeries(next) {
		assert.LessOrEqual(t, p.start, p.time, "start after time: %s", k)
		if old, ok := before[k]; ok {
			assert.Greater(t, p.time, old.time, "time did not move: %s", k)
		}
	}
}

// backfill is the tagged input with every record dated d earlier: a file
// read from the beginning, or logs that arrive late.
func backfill(t *testing.T, d time.Duration) plog.Logs {
	ld := readLogs(t, "tagged", "input.yaml")
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				lr.SetTimestamp(lr.Timestamp() - pcommon.Timestamp(d))
			}
		}
	}
	return ld
}

// TestPointTimes: over emissions with late, backfilled and out-of-order
// records, every series' point times strictly increase; start <= time;
// cumulative points keep their start; delta points tile time (each starts
// where the previous point of its series ended).
func TestPointTimes(t *testing.T) {
	forEachTemporality(t, func(t *testing.T, cfg *Config) {
		temporality := cfg.AggregationTemporality
		sink := new(consumertest.MetricsSink)
		c, clk := newTestConnector(t, cfg, settings(), sink)
		last := map[string]point{}
		batches := []plog.Logs{
			readLogs(t, "tagged", "input.yaml"),
			backfill(t, 24*time.Hour), // older than anything sent
			readLogs(t, "tagged", "input2.yaml"),
			backfill(t, time.Hour),
		}
		for i, ld := range batches {
			got := consumeAndEmit(t, c, sink, ld)
			for k, p := range pointsBySeries(got) {
				assert.Less(t, p.start, p.time, "emission %d: start not before time: %s", i, k)
				prev, seen := last[k]
				if seen {
					assert.Greater(t, p.time, prev.time, "emission %d: time did not move: %s", i, k)
					switch {
					case temporality == TemporalityDelta && p.start != 0:
						assert.Equal(t, prev.time, p.start, "emission %d: delta points do not tile: %s", i, k)
					case p.start != 0:
						assert.Equal(t, prev.start, p.start, "emission %d: cumulative start moved: %s", i, k)
					}
				}
				last[k] = p
			}
			if i%2 == 1 {
				clk.Add(cfg.EmitInterval) // and twice with a clock that did not move
			}
		}
	})
}

// TestRepeatAfterExpiryRaisesTheCounter: a job's incident series expires and
// ends with a NoRecordedValue point; the same failure later brings it back
// above every value sent before, with its original start, so increase()
// shows the repeat whatever the backend still holds.
func TestRepeatAfterExpiryRaisesTheCounter(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	first := consumeAndEmit(t, c, sink, multiHostLogs(64, clk.Now(), false))
	require.Equal(t, map[string]int64{"trainer": 1}, incidentsBy(first))

	clk.Add(c.cfg.SeriesExpiry + time.Second)
	_, ends := splitEndMarkers(consumeAndEmit(t, c, sink))
	var incidentEnds int
	forEachMetric(ends, func(_ pcommon.Resource, m pmetric.Metric) {
		assert.Equal(t, 1, pointCount(m), "one end marker per Metric (the Prometheus exporter reads no further)")
		if m.Name() == "xla.oom.incidents" {
			incidentEnds++
		}
	})
	assert.Equal(t, 1, incidentEnds)

	clk.Add(time.Minute)
	again := consumeAndEmit(t, c, sink, multiHostLogs(64, clk.Now(), false))
	assert.Equal(t, map[string]int64{"trainer": 2}, incidentsBy(again), "the counter continues at 2")
	startOf := func(md pmetric.Metrics) pcommon.Timestamp {
		var start pcommon.Timestamp
		forEachMetric(md, func(_ pcommon.Resource, m pmetric.Metric) {
			if m.Name() == "xla.oom.incidents" {
				start = m.Sum().DataPoints().At(0).StartTimestamp()
			}
		})
		return start
	}
	assert.Equal(t, startOf(first), startOf(again), "the same cumulative stream after a gap")
}

// TestDeltaFailedSendKeepsCounts: a delta point whose send fails is not lost;
// the next point covers both intervals.
func TestDeltaFailedSendKeepsCounts(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.AggregationTemporality = TemporalityDelta
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, cfg, settings(), sink)
	c.next = consumertest.NewErr(errors.New("backend down"))
	require.NoError(t, c.ConsumeLogs(context.Background(), readLogs(t, "tagged", "input.yaml")))
	require.Error(t, c.emit(context.Background()))

	c.next = sink
	clk.Add(cfg.EmitInterval)
	got := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input2.yaml"))
	assert.Equal(t, int64(7+2), sumErrors(got), "the failed interval's counts are in the next point")
	for k, p := range pointsBySeries(got) {
		if p.start != 0 {
			assert.Equal(t, pcommon.NewTimestampFromTime(clk.Now().Add(-cfg.EmitInterval)), p.start, "starts where nothing was delivered yet: %s", k)
		}
	}
}

// TestShutdownNotBlockedByDownstream: a send that a blocked downstream holds
// is cancelled by Shutdown.
func TestShutdownNotBlockedByDownstream(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.EmitInterval = minEmitInterval
	entered := make(chan struct{}, 1)
	blocked, err := consumer.NewMetrics(func(ctx context.Context, _ pmetric.Metrics) error {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return ctx.Err()
	})
	require.NoError(t, err)
	c, _ := newTestConnector(t, cfg, settings(), new(consumertest.MetricsSink))
	c.next = blocked
	require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, c.ConsumeLogs(context.Background(), readLogs(t, "tagged", "input.yaml")))
	<-entered // the ticker's send is stuck downstream

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, c.Shutdown(ctx), context.DeadlineExceeded, "the final send gives up with the caller's context")
}
