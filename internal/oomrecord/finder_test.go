// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomrecord

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

const (
	bufferOOM  = "ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)"
	compileOOM = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G."
)

func TestFindSources(t *testing.T) {
	tests := []struct {
		name     string
		sources  func() Sources
		build    func(lr plog.LogRecord)
		wantCode string // "" = not found
	}{
		{name: "string body", sources: DefaultSources, build: func(lr plog.LogRecord) { lr.Body().SetStr(bufferOOM) }, wantCode: "E0100"},
		{name: "bytes body", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetEmptyBytes().FromRaw([]byte(compileOOM))
		}, wantCode: "E1000"},
		{name: "invalid utf-8 bytes body", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetEmptyBytes().FromRaw(append([]byte{0xff}, compileOOM...))
		}},
		{name: "map body key", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetEmptyMap().PutStr("log", bufferOOM)
		}, wantCode: "E0100"},
		{name: "map body other key", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetEmptyMap().PutStr("text", bufferOOM)
		}},
		{name: "exception.message", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetStr("train step failed")
			lr.Attributes().PutStr("exception.message", compileOOM)
		}, wantCode: "E1000"},
		{name: "body wins over attribute", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetStr(bufferOOM)
			lr.Attributes().PutStr("exception.message", compileOOM)
		}, wantCode: "E0100"},
		{name: "attributes in configured order, not record order", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetStr("train step failed")
			lr.Attributes().PutStr("exception.stacktrace", bufferOOM)
			lr.Attributes().PutStr("exception.message", compileOOM)
		}, wantCode: "E1000"},
		{name: "map body keys in configured order", sources: DefaultSources, build: func(lr plog.LogRecord) {
			m := lr.Body().SetEmptyMap()
			m.PutStr("log", bufferOOM)
			m.PutStr("message", compileOOM)
		}, wantCode: "E1000"},
		{name: "body not searched", sources: func() Sources {
			f := DefaultSources()
			f.SearchBody = false
			return f
		}, build: func(lr plog.LogRecord) { lr.Body().SetStr(bufferOOM) }},
		{name: "non-string attribute", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Attributes().PutEmptySlice("exception.message").AppendEmpty().SetStr(bufferOOM)
		}},
		{name: "over the scan limit", sources: func() Sources {
			f := DefaultSources()
			f.MaxScanSize = 64
			return f
		}, build: func(lr plog.LogRecord) { lr.Body().SetStr(bufferOOM) }},
		{name: "bytes over the scan limit", sources: func() Sources {
			f := DefaultSources()
			f.MaxScanSize = 64
			return f
		}, build: func(lr plog.LogRecord) { lr.Body().SetEmptyBytes().FromRaw([]byte(bufferOOM)) }},
		{name: "attribute key of 63 bytes or more", sources: func() Sources {
			f := DefaultSources()
			f.Attributes = []string{strings.Repeat("k", 70)}
			return f
		}, build: func(lr plog.LogRecord) {
			lr.Attributes().PutStr(strings.Repeat("k", 64), bufferOOM) // shares the length bit, not the key
			lr.Attributes().PutStr(strings.Repeat("k", 70), compileOOM)
		}, wantCode: "E1000"},
		{name: "attribute of another length", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Attributes().PutStr("exception.messages", bufferOOM)
		}},
		{name: "empty string body, OOM attribute", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetStr("")
			lr.Attributes().PutStr("exception.message", compileOOM)
		}, wantCode: "E1000"},
		{name: "empty record", sources: DefaultSources, build: func(plog.LogRecord) {}},
		{name: "ordinary line", sources: DefaultSources, build: func(lr plog.LogRecord) {
			lr.Body().SetStr("I1122 10:02:03.123456 140234 train.py:211] step 1200 loss=2.38 " + strings.Repeat("x", 100))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := plog.NewLogRecord()
			tt.build(lr)
			before := plog.NewLogRecord()
			lr.CopyTo(before)
			found := NewFinder(tt.sources()).Find(lr, false)
			assert.Equal(t, tt.wantCode != "", found.Found == oom.FoundReport)
			assert.Equal(t, tt.wantCode, found.Report.Code)
			assert.Equal(t, before.Body().AsRaw(), lr.Body().AsRaw(), "Find never modifies the record")
		})
	}
}

func TestValidate(t *testing.T) {
	f := DefaultSources()
	assert.NoError(t, f.Validate())
	f.MaxScanSize = -1
	f.BodyKeys = []string{" "}
	f.SearchBody = false
	f.Attributes = nil
	err := f.Validate()
	assert.ErrorContains(t, err, "max_scan_size")
	assert.ErrorContains(t, err, "body_keys[0]: must not be empty")
	assert.ErrorContains(t, err, "search_body: is false and attributes is empty")
}

// TestReadFailureBeforeWarning: a text that holds a failure is the failure,
// whatever warning an earlier source holds; with no failure, the first
// warning in source order is reported, and only when asked for.
func TestReadFailureBeforeWarning(t *testing.T) {
	const (
		retry = "W1122 10:54:45.359616 2494 bfc_allocator.cc:371] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.01MiB from the lower end with freed_by_count=0."
		remat = "W1122 10:52:37.476699 622 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes)"
	)
	f := NewFinder(DefaultSources())
	lr := plog.NewLogRecord()
	lr.Body().SetStr(retry)
	lr.Attributes().PutStr("exception.message", compileOOM)
	found := f.Find(lr, true)
	assert.Equal(t, oom.FoundReport, found.Found)
	assert.Equal(t, "E1000", found.Report.Code)

	lr.Attributes().PutStr("exception.message", remat)
	found = f.Find(lr, true)
	assert.Equal(t, oom.FoundWarning, found.Found)
	assert.Equal(t, oom.WarningAllocatorRetry, found.Warning.Kind, "the body's warning comes first")
	assert.Equal(t, oom.FoundNothing, f.Find(lr, false).Found, "warnings only when asked for")
}

// TestScanOrdinaryRecordAllocatesNothing: the first pass over a record that
// is not an OOM costs no allocation.
func TestScanOrdinaryRecordAllocatesNothing(t *testing.T) {
	f := NewFinder(DefaultSources())
	lr := plog.NewLogRecord()
	lr.Body().SetStr("I1122 10:02:03.123456 140234 train.py:211] step 1200 loss=2.38 RESOURCES ok")
	lr.Attributes().PutStr("exception.message", "KeyError: 'Bert'")
	lr.Attributes().PutInt("step", 1200)
	var texts Candidates
	if n := testing.AllocsPerRun(100, func() { f.Scan(lr, &texts) }); n != 0 {
		t.Errorf("Scan allocates %v times on an ordinary record", n)
	}
}
