// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadatatest"
)

// Hardening: cardinality attacks, read-only input, many goroutines.

// errorsPoints returns the regular and the overflow xla.oom.errors totals and
// the number of regular series.
func errorsPoints(md pmetric.Metrics) (regular, overflow int64, series int) {
	forEachMetric(md, func(_ pcommon.Resource, m pmetric.Metric) {
		if m.Name() != "xla.oom.errors" {
			return
		}
		for _, dp := range m.Sum().DataPoints().All() {
			if _, ok := dp.Attributes().Get(overflowAttribute); ok {
				overflow += dp.IntValue()
			} else {
				regular += dp.IntValue()
				series++
			}
		}
	})
	return
}

func TestCardinalityAttack(t *testing.T) {
	const n, limit = 100000, 1000
	cases := []struct {
		name string
		dims []string
		fill func(i int, rl plog.ResourceLogs, lr plog.LogRecord)
	}{
		{"distinct resources", nil, func(i int, rl plog.ResourceLogs, _ plog.LogRecord) {
			rl.Resource().Attributes().PutStr("host.name", fmt.Sprintf("host-%d", i))
		}},
		{"distinct programs", []string{oomattr.Program}, func(i int, _ plog.ResourceLogs, lr plog.LogRecord) {
			lr.Attributes().PutStr(oomattr.Program, fmt.Sprintf("jit_step_%d", i))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tt := componenttest.NewTelemetry()
			t.Cleanup(func() { require.NoError(t, tt.Shutdown(context.Background())) })
			set := connectortest.NewNopSettings(metadata.Type)
			set.TelemetrySettings = tt.NewTelemetrySettings()
			cfg := createDefaultConfig()
			cfg.SeriesLimit = limit
			cfg.Dimensions = tc.dims
			cfg.Metrics.XlaOomIncidents.Enabled = false
			sink := new(consumertest.MetricsSink)
			c, _ := newTestConnector(t, cfg, set, sink)
			ld := plog.NewLogs()
			for i := range n {
				rl := ld.ResourceLogs().AppendEmpty()
				lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
				lr.Attributes().PutStr(oomattr.ErrorCode, "E0007") // tagged upstream, no sizes
				tc.fill(i, rl, lr)
			}
			got := consumeAndEmit(t, c, sink, ld)
			regular, overflow, series := errorsPoints(got)
			assert.LessOrEqual(t, series, limit)
			assert.Equal(t, int64(n), regular+overflow, "nothing is dropped")
			assert.Equal(t, int64(n-series), overflow, "the overflow series holds the excess")
			assert.Equal(t, limit, series)
			metadatatest.AssertEqualConnectorXlaOomOverflowDataPoints(t, tt,
				[]metricdata.DataPoint[int64]{{Value: int64(n - limit)}}, metricdatatest.IgnoreTimestamp())
		})
	}
}

// The connector only reads (MutatesData false), so a fan-out hands it the
// shared read-only data; tagged and untagged OOMs are counted without writes.
func TestReadOnlyInputNoPanic(t *testing.T) {
	cfg := createDefaultConfig()
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	require.False(t, c.Capabilities().MutatesData)
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	lrs.AppendEmpty().Body().SetStr("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.")
	lrs.AppendEmpty().Attributes().PutStr(oomattr.ErrorCode, "E0100")
	lrs.AppendEmpty().Body().SetStr("\xff\x00 not an oom")
	lrs.AppendEmpty().Body().SetEmptyMap().PutStr("message", "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1 bytes.")
	ld.MarkReadOnly()
	var got pmetric.Metrics
	require.NotPanics(t, func() {
		require.NoError(t, c.ConsumeLogs(context.Background(), ld))
		require.NoError(t, c.emit(context.Background()))
		got = sink.AllMetrics()[0]
	})
	regular, overflow, _ := errorsPoints(got)
	assert.Equal(t, int64(3), regular+overflow)
}

func TestManyGoroutinesCount(t *testing.T) {
	const workers, batches = 32, 50
	cfg := createDefaultConfig()
	cfg.Metrics.XlaOomIncidents.Enabled = false
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				ld := plog.NewLogs()
				rl := ld.ResourceLogs().AppendEmpty()
				rl.Resource().Attributes().PutStr("host.name", fmt.Sprintf("h%d", w%4))
				lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
				lrs.AppendEmpty().Body().SetStr(fmt.Sprintf("b%d RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.", b))
				lrs.AppendEmpty().Attributes().PutStr(oomattr.ErrorCode, "E0100")
				lrs.AppendEmpty().Body().SetStr("ordinary")
				ld.MarkReadOnly()
				assert.NoError(t, c.ConsumeLogs(context.Background(), ld))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, c.Shutdown(context.Background()))
	// Cumulative: the last emission holds every count.
	all := sink.AllMetrics()
	require.NotEmpty(t, all)
	regular, overflow, _ := errorsPoints(all[len(all)-1])
	assert.Equal(t, int64(2*workers*batches), regular+overflow)
}

// Every invalid setting is rejected through the real config loading with an
// error naming the field.
func TestInvalidSettingsNameTheField(t *testing.T) {
	cases := []struct {
		conf  map[string]any
		field string
	}{
		{map[string]any{"aggregation_temporality": "sometimes"}, "aggregation_temporality"},
		{map[string]any{"emit_interval": "0s"}, "emit_interval"},
		{map[string]any{"emit_interval": "often"}, "emit_interval"},
		{map[string]any{"series_expiry": "1s"}, "series_expiry"},
		{map[string]any{"series_limit": 0}, "series_limit"},
		{map[string]any{"series_limit": -5}, "series_limit"},
		{map[string]any{"buckets": []any{}}, "buckets"},
		{map[string]any{"buckets": []any{-1.0}}, "buckets[0]"},
		{map[string]any{"buckets": []any{"NaN"}}, "buckets"},
		{map[string]any{"buckets": []any{2.0, 1.0}}, "buckets[1]"},
		{map[string]any{"dimensions": []any{"host.name"}}, "dimensions[0]"},
		{map[string]any{"dimensions": []any{oomattr.Backend, oomattr.Backend}}, "dimensions[1]"},
		{map[string]any{"incident_window": "0s"}, "incident_window"},
		{map[string]any{"max_scan_size": -1}, "max_scan_size"},
		{map[string]any{"search_body": false, "attributes": []any{}}, "search_body"},
		{map[string]any{"recognize_untagged": "yes please"}, "recognize_untagged"},
		{map[string]any{"no_such_setting": 1}, "no_such_setting"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.conf), func(t *testing.T) {
			cfg := NewFactory().CreateDefaultConfig()
			err := confmap.NewFromStringMap(tc.conf).Unmarshal(cfg)
			if err == nil {
				err = confmap.Validate(cfg)
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.field)
		})
	}
}
