package xlaoomprocessor

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
)

const oneLineOOM = "ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)"

// TestHostileBodies: nothing a record carries may crash the processor, drop
// the record or change a record that is not an OOM.
func TestHostileBodies(t *testing.T) {
	cases := map[string]func(lr plog.LogRecord){
		"16 MiB body over the scan limit": func(lr plog.LogRecord) {
			lr.Body().SetStr(oneLineOOM + strings.Repeat("x", 16<<20))
		},
		"invalid UTF-8 string": func(lr plog.LogRecord) { lr.Body().SetStr("\xff\xfe" + oneLineOOM[:40] + "\xc3") },
		"NUL bytes":            func(lr plog.LogRecord) { lr.Body().SetStr("RESOURCE_EXHAUSTED:\x00 Out of\x00 memory") },
		"slice body":           func(lr plog.LogRecord) { lr.Body().SetEmptySlice().AppendEmpty().SetStr(oneLineOOM) },
		"empty body":           func(plog.LogRecord) {},
		"double body":          func(lr plog.LogRecord) { lr.Body().SetDouble(1.5) },
		"bool body":            func(lr plog.LogRecord) { lr.Body().SetBool(true) },
		"absurd size": func(lr plog.LogRecord) {
			lr.Body().SetStr("RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 99999999999999T. That was not possible. There are 6.43M free.")
		},
		"truncated breakdown": func(lr plog.LogRecord) {
			lr.Body().SetStr("Total hbm usage >= 65.05G:\n    reserved          1.25G\n    program  \n  Largest program allocations in hbm:\n  1. Size: ")
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			ld := plog.NewLogs()
			build(ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty())
			want := plog.NewLogs()
			ld.CopyTo(want)
			got := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), ld)
			require.Equal(t, 1, got.LogRecordCount())
			before := want.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
			after := got.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
			assert.Equal(t, before.Body().AsRaw(), after.Body().AsRaw(), "the body is never changed")
			if v, ok := after.Attributes().Get("xla.oom.requested.size"); ok {
				assert.GreaterOrEqual(t, v.Int(), int64(0), "a size is never wrapped negative")
			}
			if name != "absurd size" {
				assert.Equal(t, 0, after.Attributes().Len(), "not an OOM (or not read): untouched")
			}
		})
	}
}

// TestAbsurdSizeIsLeftOut: a size that does not fit an int64 is left out,
// the rest of the record is still tagged.
func TestAbsurdSizeIsLeftOut(t *testing.T) {
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(
		"RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 99999999999999T. That was not possible. There are 6.43M free.; (0x0x1_HBM0)")
	got := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), ld)
	attrs := got.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes()
	code, ok := attrs.Get("xla.error.code")
	require.True(t, ok)
	assert.Equal(t, "E0100", code.Str())
	_, ok = attrs.Get("xla.oom.requested.size")
	assert.False(t, ok, "99999999999999T does not fit in an int64")
	free, _ := attrs.Get("xla.oom.free.size")
	assert.Equal(t, int64(6742344), free.Int())
}

// TestTenThousandOOMsInOneBatch: all tagged, none dropped.
func TestTenThousandOOMsInOneBatch(t *testing.T) {
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for range 10000 {
		lrs.AppendEmpty().Body().SetStr(oneLineOOM)
	}
	got := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), ld)
	out := got.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	require.Equal(t, 10000, out.Len())
	for i := range out.Len() {
		code, ok := out.At(i).Attributes().Get("xla.error.code")
		require.True(t, ok)
		require.Equal(t, "E0100", code.Str())
	}
}

// TestPartialUpstreamTagIsRetagged documents the policy: only
// xla.error.code marks a record as tagged. A record carrying other xla.*
// attributes but no code is recognised and tagged; its existing values are
// overwritten by what the text says.
func TestPartialUpstreamTagIsRetagged(t *testing.T) {
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.Body().SetStr(oneLineOOM)
	lr.Attributes().PutInt("xla.oom.requested.size", 1)
	got := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), ld)
	attrs := got.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes()
	v, _ := attrs.Get("xla.oom.requested.size")
	assert.Equal(t, int64(8388608), v.Int())
}

// TestConcurrentConsumers: many goroutines into one processor (run with -race).
func TestConcurrentConsumers(t *testing.T) {
	sink := new(consumertest.LogsSink)
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), createDefaultConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				ld := plog.NewLogs()
				lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
				lrs.AppendEmpty().Body().SetStr(oneLineOOM)
				lrs.AppendEmpty().Body().SetStr("step " + strings.Repeat("1", g))
				assert.NoError(t, p.ConsumeLogs(context.Background(), ld))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, p.Shutdown(context.Background()))
	tagged := 0
	for _, ld := range sink.AllLogs() {
		for i := range ld.LogRecordCount() {
			lr := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(i)
			if _, ok := lr.Attributes().Get("xla.error.code"); ok {
				tagged++
			}
		}
	}
	assert.Equal(t, 32*20*2, sink.LogRecordCount())
	assert.Equal(t, 32*20, tagged)
}
