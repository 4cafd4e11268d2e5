// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadatatest"
)

// TestTelemetryCountsWarningsByKind: warnings are counted apart from the
// tagged OOMs, by kind.
func TestTelemetryCountsWarningsByKind(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	input, err := golden.ReadLogs(filepath.Join("testdata", "logs", "warnings", "input.yaml"))
	require.NoError(t, err)
	run(t, createDefaultConfig(), metadatatest.NewSettings(tel), input)

	metadatatest.AssertEqualProcessorXlaOomRecordsWarned(t, tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(attribute.String("xla.memory.warning", "rematerialization"))},
		{Value: 1, Attributes: attribute.NewSet(attribute.String("xla.memory.warning", "allocator_retry"))},
		{Value: 1, Attributes: attribute.NewSet(attribute.String("xla.memory.warning", "autotune_fallback"))},
	}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorXlaOomRecordsTagged(t, tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attribute.NewSet(attribute.String("xla.error.code", "E0007"))},
	}, metricdatatest.IgnoreTimestamp())
}

// TestWarningKeepsItsSeverity: a record that has a severity keeps it; one
// without gets WARN, never ERROR.
func TestWarningKeepsItsSeverity(t *testing.T) {
	const remat = `W1122 10:52:37.476699     622 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally`
	p := newTestProcessor(createDefaultConfig(), nil)
	bare := plog.NewLogRecord()
	bare.Body().SetStr(remat)
	kind, got := p.tag(plog.NewResourceLogs(), bare, &batch{now: time.Now()})
	require.Equal(t, taggedWarning, got)
	assert.Equal(t, "rematerialization", kind)
	assert.Equal(t, plog.SeverityNumberWarn, bare.SeverityNumber())

	info := plog.NewLogRecord()
	info.Body().SetStr(remat)
	info.SetSeverityNumber(plog.SeverityNumberInfo)
	info.SetSeverityText("INFO")
	p.tag(plog.NewResourceLogs(), info, &batch{now: time.Now()})
	assert.Equal(t, plog.SeverityNumberInfo, info.SeverityNumber())
	assert.Equal(t, "INFO", info.SeverityText())
}
