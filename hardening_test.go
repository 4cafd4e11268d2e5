// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/metadatatest"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

// Hardening: hostile and extreme input through the processor.

const hardOOM = "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes."

// recordSnapshot is everything of a record the processor may write.
type recordSnapshot struct {
	body  any
	attrs map[string]any
	sev   plog.SeverityNumber
	sevT  string
}

func snap(lr plog.LogRecord) recordSnapshot {
	return recordSnapshot{lr.Body().AsRaw(), lr.Attributes().AsRaw(), lr.SeverityNumber(), lr.SeverityText()}
}

func oneRecord(fill func(lr plog.LogRecord)) plog.Logs {
	ld := plog.NewLogs()
	fill(ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty())
	return ld
}

func firstRecord(ld plog.Logs) plog.LogRecord {
	return ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
}

func tagged(lr plog.LogRecord) bool {
	_, ok := lr.Attributes().Get("xla.error.code")
	return ok
}

// FuzzProcessRecord: a record the processor does not tag comes out with body,
// attributes and severity identical; processing twice equals processing once.
func FuzzProcessRecord(f *testing.F) {
	f.Add(hardOOM, "exception.message", "", false)
	f.Add("plain line", "exception.message", hardOOM, false)
	f.Add("Attempting to allocate 99999999999999T. That was not possible. There are 6.43M free.; (0x0x1_HBM0)", "k", "v", true)
	f.Add("\x00\xff RESOURCE_EXHAUSTED: \xfe", "exception.stacktrace", "\x00", true)
	f.Add("", "xla.oom.requested.size", "1", false)
	f.Fuzz(func(t *testing.T, body, key, val string, asBytes bool) {
		ld := oneRecord(func(lr plog.LogRecord) {
			if asBytes {
				lr.Body().SetEmptyBytes().FromRaw([]byte(body))
			} else {
				lr.Body().SetStr(body)
			}
			if key != "" {
				lr.Attributes().PutStr(key, val)
			}
		})
		before := snap(firstRecord(ld))
		preTagged := tagged(firstRecord(ld))
		p := newTestProcessor(createDefaultConfig(), nopTelemetry(t))
		out, err := p.processLogs(context.Background(), ld)
		require.NoError(t, err)
		once := snap(firstRecord(out))
		if preTagged || !tagged(firstRecord(out)) {
			if !reflect.DeepEqual(before, once) {
				t.Fatalf("untagged record changed:\nbefore %#v\nafter  %#v", before, once)
			}
		}
		out2, err := p.processLogs(context.Background(), out)
		require.NoError(t, err)
		if twice := snap(firstRecord(out2)); !reflect.DeepEqual(once, twice) {
			t.Fatalf("twice != once:\nonce  %#v\ntwice %#v", once, twice)
		}
	})
}

func nopTelemetry(t testing.TB) *metadata.TelemetryBuilder {
	tb, err := metadata.NewTelemetryBuilder(processortest.NewNopSettings(metadata.Type).TelemetrySettings)
	require.NoError(t, err)
	return tb
}

func TestHostileBodies(t *testing.T) {
	huge := strings.Repeat("x", 16<<20-len(hardOOM)) + hardOOM // 16 MiB, OOM at the very end
	cases := []struct {
		name    string
		fill    func(lr plog.LogRecord)
		maxScan int
		tag     bool
	}{
		{"16MiB over max_scan_size", func(lr plog.LogRecord) { lr.Body().SetStr(huge) }, 0, false},
		{"16MiB with max_scan_size 17MiB", func(lr plog.LogRecord) { lr.Body().SetStr(huge) }, 17 << 20, true},
		{"16MiB attribute over limit", func(lr plog.LogRecord) { lr.Attributes().PutStr("exception.message", huge) }, 0, false},
		{"invalid UTF-8 around OOM", func(lr plog.LogRecord) { lr.Body().SetStr("\xff\xfe" + hardOOM + "\xc3") }, 0, true},
		{"invalid UTF-8 only", func(lr plog.LogRecord) { lr.Body().SetStr("\xff\xfe\xfd RESOURCE_EXHAUSTED \xc3") }, 0, false},
		{"NUL bytes", func(lr plog.LogRecord) { lr.Body().SetStr("\x00\x00" + hardOOM + "\x00") }, 0, true},
		{"NUL only", func(lr plog.LogRecord) { lr.Body().SetStr(strings.Repeat("\x00", 4096)) }, 0, false},
		{"bytes body UTF-8", func(lr plog.LogRecord) { lr.Body().SetEmptyBytes().FromRaw([]byte(hardOOM)) }, 0, true},
		{"bytes body invalid UTF-8", func(lr plog.LogRecord) { lr.Body().SetEmptyBytes().FromRaw([]byte("\xff" + hardOOM)) }, 0, false},
		{"map body", func(lr plog.LogRecord) { lr.Body().SetEmptyMap().PutStr("message", hardOOM) }, 0, true},
		{"map body, non-string value", func(lr plog.LogRecord) { lr.Body().SetEmptyMap().PutInt("message", 7) }, 0, false},
		{"map body nested map", func(lr plog.LogRecord) { lr.Body().SetEmptyMap().PutEmptyMap("message").PutStr("x", hardOOM) }, 0, false},
		{"slice body", func(lr plog.LogRecord) { lr.Body().SetEmptySlice().AppendEmpty().SetStr(hardOOM) }, 0, false},
		{"empty body", func(plog.LogRecord) {}, 0, false},
		{"empty string", func(lr plog.LogRecord) { lr.Body().SetStr("") }, 0, false},
		{"int body", func(lr plog.LogRecord) { lr.Body().SetInt(-1) }, 0, false},
		{"double body", func(lr plog.LogRecord) { lr.Body().SetDouble(1e308) }, 0, false},
		{"bool body", func(lr plog.LogRecord) { lr.Body().SetBool(true) }, 0, false},
		{"int exception.message", func(lr plog.LogRecord) { lr.Attributes().PutInt("exception.message", 1) }, 0, false},
		{"absurd T size", func(lr plog.LogRecord) {
			lr.Body().SetStr("Attempting to allocate 99999999999999T. That was not possible. There are 6.43M free.; (0x0x1_HBM0)")
		}, 0, true},
		{"bare absurd size", func(lr plog.LogRecord) { lr.Body().SetStr("99999999999999T") }, 0, false},
		{"absurd bytes", func(lr plog.LogRecord) {
			lr.Body().SetStr("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 99999999999999999999999999 bytes.")
		}, 0, true},
		{"truncated breakdown", func(lr plog.LogRecord) {
			lr.Body().SetStr("RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 17.56G of 15.48G hbm. Exceeded hbm capacity by 2.08G.\n\nTotal hbm usage >= 18.08G:\n    reserved        530.00M \n    program          17.56G \n  Largest program allocations in hbm:\n\n  1. Size: 4.0")
		}, 0, true},
		{"malformed breakdown", func(lr plog.LogRecord) {
			lr.Body().SetStr("Largest program allocations in hbm:\n  1. Size: -99999999999999999999E\n  2. Size: \x00\n     Shape: f32[\n  3. Size:")
		}, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := createDefaultConfig()
			if tc.maxScan != 0 {
				cfg.MaxScanSize = tc.maxScan
			}
			require.NoError(t, cfg.Validate())
			ld := oneRecord(tc.fill)
			before := snap(firstRecord(ld))
			out := run(t, cfg, processortest.NewNopSettings(metadata.Type), ld)
			lr := firstRecord(out)
			assert.Equal(t, tc.tag, tagged(lr))
			if !tagged(lr) {
				assert.True(t, reflect.DeepEqual(before, snap(lr)), "untagged record changed")
			} else if v, ok := lr.Attributes().Get("xla.oom.requested.size"); ok {
				assert.GreaterOrEqual(t, v.Int(), int64(0))
			}
		})
	}
}

func TestTenThousandOOMsInOneBatch(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for i := range 10000 {
		lrs.AppendEmpty().Body().SetStr(fmt.Sprintf("W%04d %s", i, hardOOM))
	}
	out := run(t, createDefaultConfig(), metadatatest.NewSettings(tel), ld)
	got := out.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	require.Equal(t, 10000, got.Len())
	for i := range got.Len() {
		require.True(t, tagged(got.At(i)), "record %d", i)
	}
	metadatatest.AssertEqualProcessorXlaOomRecordsScanned(t, tel,
		[]metricdata.DataPoint[int64]{{Value: 10000}}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorXlaOomRecordsTagged(t, tel, []metricdata.DataPoint[int64]{
		{Value: 10000, Attributes: attribute.NewSet(attribute.String("xla.error.code", "E0007"))},
	}, metricdatatest.IgnoreTimestamp())
}

// A record with xla.error.code is left as it is. A record with only some
// xla.* attributes (no code) is recognised and tagged: the recogniser's
// values overwrite the stale ones, other attributes are kept.
func TestPreTaggedRecords(t *testing.T) {
	ld := oneRecord(func(lr plog.LogRecord) {
		lr.Body().SetStr(hardOOM)
		lr.Attributes().PutStr("xla.error.code", "E9999")
		lr.Attributes().PutInt("xla.oom.requested.size", 1)
	})
	before := snap(firstRecord(ld))
	out := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), ld)
	assert.Equal(t, before, snap(firstRecord(out)))

	ld = oneRecord(func(lr plog.LogRecord) {
		lr.Body().SetStr(hardOOM)
		lr.Attributes().PutInt("xla.oom.requested.size", 1)
		lr.Attributes().PutStr("keep", "me")
	})
	lr := firstRecord(run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), ld))
	code, _ := lr.Attributes().Get("xla.error.code")
	assert.Equal(t, "E0007", code.Str())
	req, _ := lr.Attributes().Get("xla.oom.requested.size")
	assert.Equal(t, int64(6291456), req.Int())
	keep, _ := lr.Attributes().Get("keep")
	assert.Equal(t, "me", keep.Str())
}

// The processor writes records, so it declares MutatesData: a fan-out clones
// read-only data for it. Read-only records that are not OOMs are only read.
func TestReadOnlyInput(t *testing.T) {
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), createDefaultConfig(), consumertest.NewNop())
	require.NoError(t, err)
	require.True(t, p.Capabilities().MutatesData)

	ordinary := oneRecord(func(lr plog.LogRecord) { lr.Body().SetStr("step 10 loss 1.25") })
	ordinary.MarkReadOnly()
	require.NotPanics(t, func() { require.NoError(t, p.ConsumeLogs(context.Background(), ordinary)) })

	oom := oneRecord(func(lr plog.LogRecord) { lr.Body().SetStr(hardOOM) })
	oom.MarkReadOnly()
	clone := plog.NewLogs() // what the fan-out does for a MutatesData consumer
	oom.CopyTo(clone)
	require.NotPanics(t, func() { require.NoError(t, p.ConsumeLogs(context.Background(), clone)) })
	assert.True(t, tagged(firstRecord(clone)))
	assert.False(t, tagged(firstRecord(oom)))
}

func TestConcurrentConsumers(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	sink := new(consumertest.LogsSink)
	p, err := NewFactory().CreateLogs(context.Background(), metadatatest.NewSettings(tel), createDefaultConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	const workers, batches = 32, 20
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				ld := plog.NewLogs()
				lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
				lrs.AppendEmpty().Body().SetStr(fmt.Sprintf("w%d b%d %s", w, b, hardOOM))
				lrs.AppendEmpty().Body().SetStr("ordinary")
				lrs.AppendEmpty().SetTimestamp(pcommon.Timestamp(b))
				assert.NoError(t, p.ConsumeLogs(context.Background(), ld))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, p.Shutdown(context.Background()))
	tags, failures := 0, 0
	for _, ld := range sink.AllLogs() {
		for _, rl := range ld.ResourceLogs().All() {
			lrs := rl.ScopeLogs().At(0).LogRecords()
			for i := range lrs.Len() {
				switch {
				case lrs.At(i).EventName() == oomattr.EventFailure:
					failures++
				case tagged(lrs.At(i)):
					tags++
				}
			}
		}
	}
	assert.Equal(t, workers*batches, tags)
	// One stream (one empty resource), every statement within the window:
	// one failure, sent at shutdown.
	assert.Equal(t, 1, failures)
	assert.Equal(t, 3*workers*batches+1, sink.LogRecordCount())
	metadatatest.AssertEqualProcessorXlaOomRecordsScanned(t, tel,
		[]metricdata.DataPoint[int64]{{Value: 3 * workers * batches}}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorXlaOomRecordsTagged(t, tel, []metricdata.DataPoint[int64]{
		{Value: workers * batches, Attributes: attribute.NewSet(attribute.String("xla.error.code", "E0007"))},
	}, metricdatatest.IgnoreTimestamp())
}
