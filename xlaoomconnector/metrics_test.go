// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/oom"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadatatest"
)

// The names, instruments and units are a contract with dashboards and alerts.
func TestDescriptors(t *testing.T) {
	d := descriptors
	assert.Equal(t, "xla.oom.errors", d[metricErrors].name)
	assert.Equal(t, "{error}", d[metricErrors].unit)
	assert.Equal(t, metadata.MetricsInfo.XlaOomErrors.Name, d[metricErrors].name)
	assert.Equal(t, "xla.oom.requested.size", d[metricRequested].name)
	assert.Equal(t, "By", d[metricRequested].unit)
	assert.Equal(t, "xla.oom.shortfall.size", d[metricShortfall].name)
	assert.Equal(t, "By", d[metricShortfall].unit)
	assert.Equal(t, "xla.oom.pressure", d[metricPressure].name)
	assert.Equal(t, "1", d[metricPressure].unit)
	assert.NotEmpty(t, d[metricPressure].description)
	assert.Equal(t, []string{"xla.error.code", "xla.error.phase", "xla.oom.cause"}, metadata.MetricsInfo.XlaOomErrors.Attributes)
	assert.Equal(t, []string{"xla.error.code"}, metadata.MetricsInfo.XlaOomPressure.Attributes)
}

// TestDescriptorsMatchMetadata: the descriptions and units of the sums and
// gauges are those metadata.yaml gives the generated MetricsBuilder, read
// back from the points it emits.
func TestDescriptorsMatchMetadata(t *testing.T) {
	mbc := metadata.NewDefaultMetricsBuilderConfig()
	mbc.Metrics.XlaOomErrors.Enabled = true
	mbc.Metrics.XlaOomPressure.Enabled = true
	mbc.Metrics.XlaOomIncidents.Enabled = true
	mbc.Metrics.XlaMemoryWarnings.Enabled = true
	mbc.Metrics.XlaMemoryWarningPressure.Enabled = true
	mb := metadata.NewMetricsBuilder(mbc, settings())
	mb.RecordXlaOomErrorsDataPoint(0, 0, "", metadata.AttributeXlaErrorPhaseRuntime)
	mb.RecordXlaOomPressureDataPoint(0, 0, "")
	mb.RecordXlaOomIncidentsDataPoint(0, 0, "", metadata.AttributeXlaOomRetryFutile)
	mb.RecordXlaMemoryWarningsDataPoint(0, 0, metadata.AttributeXlaMemoryWarningRematerialization)
	mb.RecordXlaMemoryWarningPressureDataPoint(0, 0, metadata.AttributeXlaMemoryWarningRematerialization)
	generated := map[string]descriptor{}
	for _, m := range mb.Emit().ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().All() {
		generated[m.Name()] = descriptor{name: m.Name(), description: m.Description(), unit: m.Unit()}
	}
	require.Len(t, generated, 5)
	for _, id := range []metricID{metricErrors, metricPressure, metricIncidents, metricWarnings, metricWarningPressure} {
		assert.Equal(t, generated[descriptors[id].name], descriptors[id], "metric %d", id)
	}
	for id := range numMetrics {
		assert.NotEmpty(t, descriptors[id].name)
		assert.NotEmpty(t, descriptors[id].description)
		assert.NotEmpty(t, descriptors[id].unit)
	}
}

func size(n int64) oom.Size { return oom.KnownSize(n) }

func TestShortfallAndPressure(t *testing.T) {
	const mi, gi = 1 << 20, 1 << 30
	cases := []struct {
		name          string
		r             oom.Report
		shortfall     int64
		hasShortfall  bool
		pressure      float64
		hasPressure   bool
		requested     int64
		hasRequested  bool
		wantCauseAttr string
	}{
		{
			name:      "runtime exhaustion: requested - free, requested / free",
			r:         oom.Report{Code: "E0100", Phase: "runtime", Requested: size(8 * mi), Free: size(2 * mi), Cause: oom.CauseExhaustion},
			shortfall: 6 * mi, hasShortfall: true, pressure: 4, hasPressure: true,
			requested: 8 * mi, hasRequested: true, wantCauseAttr: "exhaustion",
		},
		{
			name:     "fragmentation: nothing missing in total",
			r:        oom.Report{Code: "E0100", Phase: "runtime", Requested: size(mi), Free: size(8 * mi), Cause: oom.CauseFragmentation},
			pressure: 0.125, hasPressure: true, requested: mi, hasRequested: true, wantCauseAttr: "fragmentation",
		},
		{
			name:      "compile: printed excess, used / capacity",
			r:         oom.Report{Code: "E1000", Phase: "compile", Used: size(48 * gi), Capacity: size(32 * gi), Exceeded: size(17 * gi)},
			shortfall: 17 * gi, hasShortfall: true, pressure: 1.5, hasPressure: true,
		},
		{
			name:      "compile: used - capacity when the excess is not printed",
			r:         oom.Report{Code: "E1000", Phase: "compile", Used: size(40 * gi), Capacity: size(32 * gi)},
			shortfall: 8 * gi, hasShortfall: true, pressure: 1.25, hasPressure: true,
		},
		{
			name:     "requested / capacity when free is not printed",
			r:        oom.Report{Code: "E1001", Phase: "compile", Requested: size(24 * mi), Capacity: size(16 * mi)},
			pressure: 1.5, hasPressure: true, requested: 24 * mi, hasRequested: true,
		},
		{
			name:      "nothing free: no ratio from free, capacity used instead",
			r:         oom.Report{Code: "E0100", Phase: "runtime", Requested: size(4 * mi), Free: size(0), Capacity: size(16 * mi)},
			shortfall: 4 * mi, hasShortfall: true, pressure: 0.25, hasPressure: true, requested: 4 * mi, hasRequested: true,
		},
		{
			name: "no sizes: counted only",
			r:    oom.Report{Code: "E0007", Phase: "runtime"},
		},
		{
			name:      "zero capacity and unknown cause are left out",
			r:         oom.Report{Code: "E1000", Phase: "compile", Used: size(gi), Capacity: size(0), Cause: "weird"},
			shortfall: gi, hasShortfall: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := measure(tc.r, dimensions{})
			assert.Equal(t, tc.hasShortfall, m.hasShortfall)
			assert.Equal(t, tc.shortfall, m.shortfall)
			assert.Equal(t, tc.hasPressure, m.hasPressure)
			assert.InDelta(t, tc.pressure, m.pressure, 1e-12)
			assert.Equal(t, tc.hasRequested, m.hasRequested)
			assert.Equal(t, tc.requested, m.requested)
			assert.Equal(t, attrKey{code: tc.r.Code, phase: tc.r.Phase, cause: tc.wantCauseAttr}, m.attrsFor(metricErrors))
			assert.Equal(t, attrKey{code: tc.r.Code}, m.attrsFor(metricPressure))
		})
	}
}

func TestMeasureDimensions(t *testing.T) {
	r := oom.Report{Code: "E0100", Phase: "bogus", Program: "jit_step", Backend: "tpu", MemorySpace: "hbm"}
	assert.Equal(t, attrKey{code: "E0100"}, measure(r, dimensions{}).attrs, "an unknown phase is left out")
	assert.Equal(t, attrKey{code: "E0100", program: "jit_step", memorySpace: "hbm"},
		measure(r, newDimensions([]string{"xla.program.name", "xla.memory.space"})).attrsFor(metricRequested))
}

func TestHistogramBuckets(t *testing.T) {
	bounds := []float64{10, 20, 30}
	var h histogram
	for _, v := range []float64{1, 10, 11, 20, 30, 31, 1e9} {
		h.observe(bounds, v)
	}
	assert.Equal(t, []uint64{2, 2, 1, 2}, h.buckets, "each bucket is (previous bound, bound]")
	assert.Equal(t, uint64(7), h.count)
	assert.InDelta(t, 1.0, h.min, 0)
	assert.InDelta(t, 1e9, h.max, 0)
}

func TestCustomBucketsAndDisabledMetrics(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.Buckets = []float64{1 << 30}
	cfg.Metrics.XlaOomErrors.Enabled = false
	cfg.Metrics.XlaOomShortfallSize.Enabled = false
	cfg.Metrics.XlaOomPressure.Enabled = false
	cfg.Metrics.XlaOomIncidents.Enabled = false
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
	var counts []uint64
	forEachMetric(got, func(_ pcommon.Resource, m pmetric.Metric) {
		require.Equal(t, "xla.oom.requested.size", m.Name())
		for _, dp := range m.Histogram().DataPoints().All() {
			assert.Equal(t, []float64{1 << 30}, dp.ExplicitBounds().AsRaw())
			counts = append(counts, dp.BucketCounts().AsRaw()...)
		}
	})
	// host a E0100: 8 MiB, 16 MiB; host b E0101: 29.49 GiB; host b E0100: 1 MiB.
	assert.ElementsMatch(t, []uint64{2, 0, 0, 1, 1, 0}, counts)
}

func TestTelemetryRecords(t *testing.T) {
	tt := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tt.Shutdown(context.Background())) })
	sink := new(consumertest.MetricsSink)
	cfg := createDefaultConfig()
	cfg.Metrics.XlaOomIncidents.Enabled = false // series counted below are the per-host ones
	c, _ := newTestConnector(t, cfg, metadatatest.NewSettings(tt), sink)
	consumeAndEmit(t, c, sink, readLogs(t, "tagged", "input.yaml"))
	metadatatest.AssertEqualConnectorXlaOomRecords(t, tt, []metricdata.DataPoint[int64]{
		{Value: 7, Attributes: attribute.NewSet(attribute.String("source", "attributes"))},
	}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualConnectorXlaOomSeries(t, tt,
		[]metricdata.DataPoint[int64]{{Value: 15}}, metricdatatest.IgnoreTimestamp())
}

// TestTelemetryRecognised needs the recogniser of package oom.
func TestTelemetryRecognised(t *testing.T) {
	tt := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tt.Shutdown(context.Background())) })
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, createDefaultConfig(), metadatatest.NewSettings(tt), sink)
	consumeAndEmit(t, c, sink, readLogs(t, "untagged", "input.yaml"))
	metadatatest.AssertEqualConnectorXlaOomRecords(t, tt, []metricdata.DataPoint[int64]{
		{Value: 6, Attributes: attribute.NewSet(attribute.String("source", "text"))},
	}, metricdatatest.IgnoreTimestamp())
}

func TestResourceKey(t *testing.T) {
	a := pcommon.NewResource()
	a.Attributes().PutStr("host.name", "h")
	a.Attributes().PutInt("rank", 1)
	b := pcommon.NewResource()
	b.Attributes().PutInt("rank", 1)
	b.Attributes().PutStr("host.name", "h")
	assert.Equal(t, resourceKeyOf(a, ""), resourceKeyOf(b, ""), "attribute order does not matter")
	assert.NotEqual(t, resourceKeyOf(a, ""), resourceKeyOf(a, "https://opentelemetry.io/schemas/1.40.0"))

	c := pcommon.NewResource()
	c.Attributes().PutStr("host.name", "h")
	c.Attributes().PutStr("rank", "1")
	assert.NotEqual(t, resourceKeyOf(a, ""), resourceKeyOf(c, ""), "types are part of the key")

	d := pcommon.NewResource()
	d.Attributes().PutStr("host.name", "h}1:")
	e := pcommon.NewResource()
	e.Attributes().PutStr("host.name", "h")
	e.Attributes().PutStr("}1:", "")
	assert.NotEqual(t, resourceKeyOf(d, ""), resourceKeyOf(e, ""), "values cannot forge keys")

	n1, n2 := pcommon.NewResource(), pcommon.NewResource()
	m1 := n1.Attributes().PutEmptyMap("k8s")
	m1.PutStr("pod", "p")
	m1.PutStr("ns", "n")
	m2 := n2.Attributes().PutEmptyMap("k8s")
	m2.PutStr("ns", "n")
	m2.PutStr("pod", "p")
	n2.Attributes().PutEmptySlice("s")
	assert.NotEqual(t, resourceKeyOf(n1, ""), resourceKeyOf(n2, ""))
	n2.Attributes().Remove("s")
	assert.Equal(t, resourceKeyOf(n1, ""), resourceKeyOf(n2, ""), "nested maps are sorted too")
}

// TestShortfallGuardsAbsurdSizes: negative or overflowing sizes, possible
// only on a hand-made tag, give no shortfall or pressure instead of a
// negative or wrapped one.
func TestShortfallGuardsAbsurdSizes(t *testing.T) {
	for name, r := range map[string]oom.Report{
		"negative capacity":  {Used: oom.KnownSize(10), Capacity: oom.KnownSize(math.MinInt64)},
		"negative free":      {Requested: oom.KnownSize(math.MaxInt64), Free: oom.KnownSize(-1)},
		"negative requested": {Requested: oom.KnownSize(-5), Free: oom.KnownSize(-10)},
		"negative exceeded":  {Exceeded: oom.KnownSize(-1)},
	} {
		_, ok := shortfall(r)
		assert.False(t, ok, name)
		m := measure(r, dimensions{})
		assert.False(t, m.hasShortfall, name)
		assert.False(t, m.hasPressure, name)
		assert.False(t, m.hasRequested && m.requested < 0, name)
	}
}
