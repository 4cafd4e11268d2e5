// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadatatest"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

// TestGenericRecordsMarkedAndCounted: a memory failure no family knows is
// tagged like any OOM, marked xla.oom.generic, and counted apart as well;
// a known family's record carries no mark.
func TestGenericRecordsMarkedAndCounted(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for _, body := range []string{
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from MORI memory`,
		`jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory`,
		`XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 214748364800 bytes.`,
		`google.api_core.exceptions.ResourceExhausted: 429 Resource has been exhausted (e.g. check quota).`,
	} {
		lrs.AppendEmpty().Body().SetStr(body)
	}
	out := run(t, createDefaultConfig(), metadatatest.NewSettings(tel), ld)
	records := out.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	for i, want := range []bool{true, true, false, false} {
		assert.Equal(t, want, oomattr.IsGeneric(records.At(i).Attributes()), "record %d", i)
	}
	_, tagged := records.At(2).Attributes().Get(oomattr.ErrorCode)
	assert.True(t, tagged)
	assert.Equal(t, 0, records.At(3).Attributes().Len(), "a quota error is left untouched")

	metadatatest.AssertEqualProcessorXlaOomRecordsGeneric(t, tel,
		[]metricdata.DataPoint[int64]{{Value: 2}}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorXlaOomRecordsTagged(t, tel, []metricdata.DataPoint[int64]{
		{Value: 3, Attributes: attribute.NewSet(attribute.String(oomattr.ErrorCode, "E0007"))},
	}, metricdatatest.IgnoreTimestamp())
}
