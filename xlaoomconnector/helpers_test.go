// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"context"
	"flag"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// the diff before committing it.
var update = flag.Bool("update", false, "rewrite golden files")

// clock is a settable wall clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newTestConnector builds a connector through the factory, on a settable clock.
func newTestConnector(t *testing.T, cfg *Config, set connector.Settings, sink *consumertest.MetricsSink) (*xlaOOMConnector, *clock) {
	t.Helper()
	require.NoError(t, cfg.Validate())
	c, err := NewFactory().CreateLogsToMetrics(context.Background(), set, cfg, sink)
	require.NoError(t, err)
	conn := c.(*xlaOOMConnector)
	clk := &clock{t: time.Date(2025, 11, 22, 10, 5, 0, 0, time.UTC)}
	conn.now = clk.Now
	return conn, clk
}

// forEachTemporality runs test once per aggregation temporality, as a subtest
// named after it, with the default config set to that temporality.
func forEachTemporality(t *testing.T, test func(t *testing.T, cfg *Config)) {
	for _, temporality := range []string{TemporalityCumulative, TemporalityDelta} {
		t.Run(temporality, func(t *testing.T) {
			cfg := createDefaultConfig()
			cfg.AggregationTemporality = temporality
			test(t, cfg)
		})
	}
}

func readLogs(t *testing.T, parts ...string) plog.Logs {
	t.Helper()
	ld, err := golden.ReadLogs(filepath.Join(append([]string{"testdata", "logs"}, parts...)...))
	require.NoError(t, err)
	return ld
}

// compareGolden compares got with a golden file, rewriting it under -update.
// Order is not compared: resources follow a hash, and the golden writer sorts.
func compareGolden(t *testing.T, got pmetric.Metrics, parts ...string) {
	t.Helper()
	file := filepath.Join(append([]string{"testdata", "metrics"}, parts...)...)
	if *update {
		require.NoError(t, golden.WriteMetricsToFile(file, got, golden.SkipMetricTimestampNormalization()))
	}
	want, err := golden.ReadMetrics(file)
	require.NoError(t, err)
	require.NoError(t, pmetrictest.CompareMetrics(want, got, pmetrictest.IgnoreResourceMetricsOrder(),
		pmetrictest.IgnoreMetricsOrder(), pmetrictest.IgnoreMetricDataPointsOrder()))
}

// consumeAndEmit feeds each batch, then emits once and returns what came out.
func consumeAndEmit(t *testing.T, c *xlaOOMConnector, sink *consumertest.MetricsSink, batches ...plog.Logs) pmetric.Metrics {
	t.Helper()
	for _, ld := range batches {
		ld.MarkReadOnly() // the connector must not write to its input
		require.NoError(t, c.ConsumeLogs(context.Background(), ld))
	}
	before := len(sink.AllMetrics())
	require.NoError(t, c.emit(context.Background()))
	require.Len(t, sink.AllMetrics(), before+1)
	return sink.AllMetrics()[before]
}

func settings() connector.Settings { return connectortest.NewNopSettings(metadata.Type) }
