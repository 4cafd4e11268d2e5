// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/oom"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// warningsBy returns xla.memory.warnings per service.name and kind, and the
// resources that carry them.
func warningsBy(md pmetric.Metrics) (counts map[string]int64, resources []pcommon.Map) {
	counts = map[string]int64{}
	forEachMetric(md, func(res pcommon.Resource, m pmetric.Metric) {
		if m.Name() != "xla.memory.warnings" {
			return
		}
		resources = append(resources, res.Attributes())
		svc, _ := res.Attributes().Get("service.name")
		for _, dp := range m.Sum().DataPoints().All() {
			kind, _ := dp.Attributes().Get("xla.memory.warning")
			counts[svc.Str()+"/"+kind.Str()] += dp.IntValue()
		}
	})
	return counts, resources
}

// TestGoldenWarnings: warnings recognised in text and read from the
// processor's tags count per job (service.name, no host.name), never in
// xla.oom.errors; the OOM of the same job counts only there.
func TestGoldenWarnings(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, createDefaultConfig(), settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "warnings", "input.yaml"))
	compareGolden(t, got, "warnings", "cumulative.yaml")

	counts, resources := warningsBy(got)
	assert.Equal(t, map[string]int64{
		"trainer/rematerialization":   2,
		"trainer/allocator_retry":     2,
		"evaluator/autotune_fallback": 1,
	}, counts)
	for _, res := range resources {
		_, host := res.Get("host.name")
		assert.False(t, host, "warnings belong to the job resource")
	}
	assert.Equal(t, int64(1), sumErrors(got), "only the OOM counts as an error")
}

// TestWarningPressureIsTheLatest: the gauge holds the latest warning's
// demand / limit per job and kind; kinds without a limit set none.
func TestWarningPressureIsTheLatest(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, createDefaultConfig(), settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "warnings", "input.yaml"))
	pressures := map[string]float64{}
	forEachMetric(got, func(res pcommon.Resource, m pmetric.Metric) {
		if m.Name() != "xla.memory.warning.pressure" {
			return
		}
		svc, _ := res.Attributes().Get("service.name")
		for _, dp := range m.Gauge().DataPoints().All() {
			kind, _ := dp.Attributes().Get("xla.memory.warning")
			pressures[svc.Str()+"/"+kind.Str()] = dp.DoubleValue()
		}
	})
	// host b's tagged record (78e9 / 60574761232) is later than host a's text.
	assert.InDelta(t, 78000000000.0/60574761232.0, pressures["trainer/rematerialization"], 1e-9)
	assert.Len(t, pressures, 1)
}

func TestWarningMetricsCanBeTurnedOff(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.Metrics.XlaMemoryWarnings.Enabled = false
	cfg.Metrics.XlaMemoryWarningPressure.Enabled = false
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "warnings", "input.yaml"))
	forEachMetric(got, func(_ pcommon.Resource, m pmetric.Metric) {
		assert.NotContains(t, m.Name(), "xla.memory.warning")
	})
	assert.Equal(t, int64(1), sumErrors(got))
}

// With recognize_untagged off, only the processor's tags count.
func TestWarningsTaggedOnly(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.RecognizeUntagged = false
	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	got := consumeAndEmit(t, c, sink, readLogs(t, "warnings", "input.yaml"))
	counts, _ := warningsBy(got)
	assert.Equal(t, map[string]int64{"trainer/rematerialization": 1, "trainer/allocator_retry": 1}, counts)
}

// Every kind the recogniser reports is in the metadata.yaml enum, so none is
// dropped as a hand-made tag.
func TestWarningKindsAreInTheEnum(t *testing.T) {
	kinds := oom.WarningKinds()
	assert.Len(t, metadata.MapAttributeXlaMemoryWarning, len(kinds))
	for _, k := range kinds {
		_, ok := metadata.MapAttributeXlaMemoryWarning[k]
		assert.True(t, ok, k)
	}
}

// Hand-made tags: sizes that cannot be a demand or a limit set no pressure.
func TestWarningPressureOfHandMadeTags(t *testing.T) {
	for name, w := range map[string]oom.Warning{
		"negative used":    {Kind: oom.WarningRematerialization, Used: oom.KnownSize(-5), Capacity: oom.KnownSize(10)},
		"zero limit":       {Kind: oom.WarningRematerialization, Used: oom.KnownSize(5), Capacity: oom.KnownSize(0)},
		"free above total": {Kind: oom.WarningMemoryUsage, Free: oom.KnownSize(11), Capacity: oom.KnownSize(10)},
		"no limit":         {Kind: oom.WarningAllocatorRetry, Requested: oom.KnownSize(5)},
	} {
		m, ok := measureWarning(w, dimensions{})
		assert.True(t, ok, name)
		assert.False(t, m.hasPressure, name)
	}
	_, ok := measureWarning(oom.Warning{Kind: "made_up"}, dimensions{})
	assert.False(t, ok)
}
