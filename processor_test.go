// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/metadatatest"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
)

// -update rewrites the expected golden files from the current output. Review
// the diff before committing it.
var update = flag.Bool("update", false, "rewrite golden files")

// run passes ld through a processor built from cfg and returns what came out
// of the batch; what shutdown sent after it must be failure records only.
func run(t *testing.T, cfg *Config, set processor.Settings, ld plog.Logs) plog.Logs {
	t.Helper()
	out, _ := runAll(t, cfg, set, ld)
	return out
}

// runAll is run that also returns the failure records shutdown sent, one
// batch.
func runAll(t *testing.T, cfg *Config, set processor.Settings, ld plog.Logs) (batch, atShutdown plog.Logs) {
	t.Helper()
	sink := new(consumertest.LogsSink)
	p, err := NewFactory().CreateLogs(context.Background(), set, cfg, sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, p.ConsumeLogs(context.Background(), ld))
	require.NoError(t, p.Shutdown(context.Background()))
	all := sink.AllLogs()
	require.NotEmpty(t, all)
	atShutdown = plog.NewLogs()
	if len(all) > 1 {
		require.Len(t, all, 2, "the batch, then the failures open at shutdown")
		atShutdown = all[1]
		for i := range atShutdown.ResourceLogs().Len() {
			lrs := atShutdown.ResourceLogs().At(i).ScopeLogs().At(0).LogRecords()
			for k := range lrs.Len() {
				require.Equal(t, oomattr.EventFailure, lrs.At(k).EventName())
			}
		}
	}
	return all[0], atShutdown
}

func TestProcessorGolden(t *testing.T) {
	cases := []struct {
		dir   string
		input string // directory of input.yaml; "" reads mixed
		cfg   func() *Config
	}{
		{dir: "mixed", cfg: createDefaultConfig},
		{dir: "mixed_no_severity", cfg: func() *Config {
			c := createDefaultConfig()
			c.SetSeverity = false
			return c
		}},
		{dir: "mixed_body_only", cfg: func() *Config {
			c := createDefaultConfig()
			c.Attributes = nil
			return c
		}},
		// Memory breakdowns (TPU compile time, vLLM-prefixed, XRT, GPU
		// BufferAssignment), breakdown lines arriving alone (untouched), and
		// one failure logged by three hosts (one xla.oom.incident.id).
		{dir: "breakdown", input: "breakdown", cfg: createDefaultConfig},
		// Memory-pressure warnings before the failure they announce: each
		// warning gets xla.memory.warning and no xla.error.code, the fatal
		// BFC headline and the status stay OOMs, a record already tagged as
		// a warning and the preallocation info line are left as they are.
		{dir: "warnings", input: "warnings", cfg: createDefaultConfig},
		{dir: "warnings_off", input: "warnings", cfg: func() *Config {
			c := createDefaultConfig()
			c.MemoryWarnings = false
			return c
		}},
		{dir: "breakdown_top1", input: "breakdown", cfg: func() *Config {
			c := createDefaultConfig()
			c.TopAllocations = 1
			return c
		}},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			in := tc.input
			if in == "" {
				in = "mixed"
			}
			input, err := golden.ReadLogs(filepath.Join("testdata", "logs", in, "input.yaml"))
			require.NoError(t, err)
			got := run(t, tc.cfg(), processortest.NewNopSettings(metadata.Type), input)
			expectedFile := filepath.Join("testdata", "logs", tc.dir, "expected.yaml")
			if *update {
				require.NoError(t, golden.WriteLogsToFile(expectedFile, got))
			}
			expected, err := golden.ReadLogs(expectedFile)
			require.NoError(t, err)
			require.NoError(t, plogtest.CompareLogs(expected, got, plogtest.IgnoreObservedTimestamp()))
		})
	}
}

// TestOrdinaryRecordsUnchanged checks the promise that matters most on a busy
// pipeline: whatever is not an XLA OOM comes out exactly as it went in.
func TestOrdinaryRecordsUnchanged(t *testing.T) {
	input, err := golden.ReadLogs(filepath.Join("testdata", "logs", "mixed", "input.yaml"))
	require.NoError(t, err)
	want := plog.NewLogs()
	input.CopyTo(want)
	got, failures := splitFailures(run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), input))

	require.Equal(t, want.LogRecordCount(), got.LogRecordCount(), "no record may be dropped")
	assert.Equal(t, 3, failures, "one failure record per failure that closed in the batch")
	tagged, warned := 0, 0
	forEachRecordPair(want, got, func(before, after plog.LogRecord) {
		if _, ok := after.Attributes().Get("xla.error.code"); ok {
			if _, wasTagged := before.Attributes().Get("xla.error.code"); !wasTagged {
				tagged++
				return
			}
		}
		if _, ok := after.Attributes().Get("xla.memory.warning"); ok {
			warned++
			return
		}
		assert.Equal(t, before.Body().AsRaw(), after.Body().AsRaw())
		assert.Equal(t, before.Attributes().AsRaw(), after.Attributes().AsRaw())
		assert.Equal(t, before.SeverityNumber(), after.SeverityNumber())
		assert.Equal(t, before.SeverityText(), after.SeverityText())
	})
	assert.Equal(t, 5, tagged, "the mixed input holds five untagged XLA OOM records")
	assert.Equal(t, 1, warned, "and one BFC allocator retry warning")
}

func TestProcessingTwiceEqualsOnce(t *testing.T) {
	input, err := golden.ReadLogs(filepath.Join("testdata", "logs", "mixed", "input.yaml"))
	require.NoError(t, err)
	once := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), input)
	again := plog.NewLogs()
	once.CopyTo(again)
	twice := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), again)
	require.NoError(t, plogtest.CompareLogs(once, twice))
}

func TestScanLimitPassesLongRecordsUnchanged(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.MaxScanSize = 4096
	oomLine := "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes."
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	lrs.AppendEmpty().Body().SetStr(oomLine + strings.Repeat(" padding", 1000))
	lrs.AppendEmpty().Body().SetStr(oomLine)

	got := run(t, cfg, processortest.NewNopSettings(metadata.Type), ld)
	records := got.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	assert.Equal(t, 0, records.At(0).Attributes().Len(), "a text over max_scan_size is not read")
	_, tagged := records.At(1).Attributes().Get("xla.error.code")
	assert.True(t, tagged)
}

func TestTelemetryCountsScannedAndTaggedByCode(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	input, err := golden.ReadLogs(filepath.Join("testdata", "logs", "mixed", "input.yaml"))
	require.NoError(t, err)
	n := input.LogRecordCount()
	run(t, createDefaultConfig(), metadatatest.NewSettings(tel), input)

	metadatatest.AssertEqualProcessorXlaOomRecordsScanned(t, tel,
		[]metricdata.DataPoint[int64]{{Value: int64(n)}}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorXlaOomRecordsTagged(t, tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(attribute.String("xla.error.code", "E1000"))},
		{Value: 1, Attributes: attribute.NewSet(attribute.String("xla.error.code", "E0101"))},
		{Value: 1, Attributes: attribute.NewSet(attribute.String("xla.error.code", "E0100"))},
		{Value: 2, Attributes: attribute.NewSet(attribute.String("xla.error.code", "E0007"))},
	}, metricdatatest.IgnoreTimestamp())
}

func forEachRecordPair(a, b plog.Logs, fn func(before, after plog.LogRecord)) {
	for i := 0; i < a.ResourceLogs().Len(); i++ {
		sa, sb := a.ResourceLogs().At(i).ScopeLogs(), b.ResourceLogs().At(i).ScopeLogs()
		for j := 0; j < sa.Len(); j++ {
			la, lb := sa.At(j).LogRecords(), sb.At(j).LogRecords()
			for k := 0; k < la.Len(); k++ {
				fn(la.At(k), lb.At(k))
			}
		}
	}
}

// TestUndatedRecordIsDatedAtArrival: a record with neither Timestamp nor
// ObservedTimestamp falls into the incident window of its arrival, not the
// 1970 one that every undated record would otherwise share.
func TestUndatedRecordIsDatedAtArrival(t *testing.T) {
	const msg = "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1477187472 bytes."
	idAt := func(now time.Time) string {
		p := newTestProcessor(createDefaultConfig(), nil)
		p.now = func() time.Time { return now }
		lr := plog.NewLogRecord()
		lr.Body().SetStr(msg)
		_, tagged := p.tag(plog.NewResourceLogs(), lr, &batch{now: now})
		require.Equal(t, taggedOOM, tagged)
		v, ok := lr.Attributes().Get(oomattr.Incident)
		require.True(t, ok)
		return v.Str()
	}
	arrival := time.Date(2025, 11, 22, 10, 0, 5, 0, time.UTC)
	assert.Equal(t, incident.ID(pcommon.NewMap(), incident.DefaultResourceAttributes(), pcommon.NewTimestampFromTime(arrival), incident.DefaultWindow), idAt(arrival))
	assert.NotEqual(t, idAt(arrival), idAt(arrival.Add(time.Hour)), "an hour apart: two incidents")
}

// splitFailures returns ld without the failure records the processor added
// (the resources that hold them), and how many there were.
func splitFailures(ld plog.Logs) (plog.Logs, int) {
	out := plog.NewLogs()
	ld.CopyTo(out)
	n := 0
	out.ResourceLogs().RemoveIf(func(rl plog.ResourceLogs) bool {
		lrs := rl.ScopeLogs().At(0).LogRecords()
		if lrs.Len() > 0 && lrs.At(0).EventName() == oomattr.EventFailure {
			n += lrs.Len()
			return true
		}
		return false
	})
	return out, n
}

// newTestProcessor is a processor built as the factory builds it.
func newTestProcessor(cfg *Config, telemetry *metadata.TelemetryBuilder) *logsProcessor {
	return newLogsProcessor(cfg, oomrecord.NewFinder(cfg.Sources), telemetry, consumertest.NewNop())
}
