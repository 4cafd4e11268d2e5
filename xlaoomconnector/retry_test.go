// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// Real texts: the BFC allocator's warning of a real GPU capture
// (oom/testdata/real/jit_temps.stderr.txt), which says nothing of whether a
// restart helps, and the status a real job raised after its pool backed off
// beside another job (oom/testdata/jobs/two_jobs_second.log).
const (
	bfcWarning   = "W1122 10:52:47.547473     622 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 69.85GiB (rounded to 75003125760) from the lower end requested by op "
	driverStatus = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory [executable_name='jit_broadcast_in_dim']"
)

// incidentsByRetry returns xla.oom.incidents per xla.oom.retry.
func incidentsByRetry(md pmetric.Metrics) map[string]int64 {
	out := map[string]int64{}
	for _, rm := range md.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				if m.Name() != "xla.oom.incidents" {
					continue
				}
				for _, dp := range m.Sum().DataPoints().All() {
					v, _ := dp.Attributes().Get(oomattr.Retry)
					out[v.Str()] += dp.IntValue()
				}
			}
		}
	}
	return out
}

// jobLogs is one record per body, of one job, a second apart.
func jobLogs(start time.Time, bodies ...string) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "trainer")
	for i, b := range bodies {
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(i) * time.Second)))
		lr.Body().SetStr(b)
	}
	return ld
}

func TestIncidentRetryLabel(t *testing.T) {
	compile := "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G."
	for _, tc := range []struct {
		name   string
		bodies []string
		want   map[string]int64
	}{
		{"compile-time: futile", []string{compile}, map[string]int64{oom.RetryFutile: 1}},
		{"an allocator warning alone: unknown", []string{bfcWarning}, map[string]int64{oom.RetryUnknown: 1}},
		// One failure, two records: the status that knows settles the
		// incident the warning opened, which still counts once.
		{"the record that knows decides", []string{bfcWarning, driverStatus}, map[string]int64{oom.RetryMayHelp: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := new(consumertest.MetricsSink)
			c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
			got := consumeAndEmit(t, c, sink, jobLogs(clk.Now().Truncate(time.Minute).Add(10*time.Second), tc.bodies...))
			assert.Equal(t, tc.want, incidentsByRetry(got))
		})
	}
}

// A tag written by a processor older than the verdict carries none: the
// connector reads it from the tag's own attributes; a value outside the
// three is read as unknown, so the label keeps three values.
func TestIncidentRetryOfOlderAndForeignTags(t *testing.T) {
	for _, tc := range []struct {
		retry string // "" leaves xla.oom.retry out
		want  string
	}{
		{"", oom.RetryFutile},
		{"futile", oom.RetryFutile},
		{"may_help", oom.RetryMayHelp},
		{"retry-me-please", oom.RetryUnknown},
	} {
		ld := jobLogs(time.Unix(1700000000, 0), "tagged upstream")
		attrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes()
		attrs.PutStr(oomattr.ErrorCode, "E1000")
		attrs.PutStr(oomattr.ErrorPhase, oom.PhaseCompile)
		if tc.retry != "" {
			attrs.PutStr(oomattr.Retry, tc.retry)
		}
		sink := new(consumertest.MetricsSink)
		c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
		ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).SetTimestamp(pcommon.NewTimestampFromTime(clk.Now()))
		got := consumeAndEmit(t, c, sink, ld)
		assert.Equal(t, map[string]int64{tc.want: 1}, incidentsByRetry(got), "xla.oom.retry=%q", tc.retry)
	}
}

// The label's values are exactly the verdicts, as declared in metadata.yaml.
func TestRetryLabelValuesAreTheVerdicts(t *testing.T) {
	assert.ElementsMatch(t, []string{oom.RetryFutile, oom.RetryMayHelp, oom.RetryUnknown},
		[]string{metadata.AttributeXlaOomRetryFutile.String(), metadata.AttributeXlaOomRetryMayHelp.String(), metadata.AttributeXlaOomRetryUnknown.String()})
	assert.Len(t, metadata.MapAttributeXlaOomRetry, 3)
}

// A tag of an older processor with no verdict is read futile only by a rule
// no fact of its job can overturn: a request over a JAX pool's limit is
// futile on a free device, but the processor reads it may_help where memory
// was held at start, so the connector says unknown.
func TestIncidentRetryOfOlderTagsNeverFutileWhereTheJobCouldSayOtherwise(t *testing.T) {
	ld := jobLogs(time.Unix(1700000000, 0), "tagged upstream")
	attrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes()
	attrs.PutStr(oomattr.ErrorCode, "E0007")
	attrs.PutStr(oomattr.ErrorPhase, oom.PhaseRuntime)
	attrs.PutStr(oomattr.Backend, oom.BackendGPU)
	attrs.PutInt(oomattr.Requested, 100000000000)
	attrs.PutInt(oomattr.PoolLimit, 63763120128)
	attrs.PutStr(oomattr.Framework, "jax")
	r, _ := oomattr.Get(attrs)
	require.Equal(t, oom.Decision{Verdict: oom.RetryFutile, Rule: "larger than the pool"}, oom.Judge(&r, oom.Facts{}), "the record alone")
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).SetTimestamp(pcommon.NewTimestampFromTime(clk.Now()))
	assert.Equal(t, map[string]int64{oom.RetryUnknown: 1}, incidentsByRetry(consumeAndEmit(t, c, sink, ld)))
}
