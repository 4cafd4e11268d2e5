// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomrecord

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/plog"
)

const (
	bufferOOM  = "ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)"
	compileOOM = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G."
)

func TestFindSources(t *testing.T) {
	tests := []struct {
		name     string
		finder   func() Finder
		build    func(lr plog.LogRecord)
		wantCode string // "" = not found
	}{
		{name: "string body", finder: DefaultFinder, build: func(lr plog.LogRecord) { lr.Body().SetStr(bufferOOM) }, wantCode: "E0100"},
		{name: "bytes body", finder: DefaultFinder, build: func(lr plog.LogRecord) {
			lr.Body().SetEmptyBytes().FromRaw([]byte(compileOOM))
		}, wantCode: "E1000"},
		{name: "invalid utf-8 bytes body", finder: DefaultFinder, build: func(lr plog.LogRecord) {
			lr.Body().SetEmptyBytes().FromRaw(append([]byte{0xff}, compileOOM...))
		}},
		{name: "map body key", finder: DefaultFinder, build: func(lr plog.LogRecord) {
			lr.Body().SetEmptyMap().PutStr("log", bufferOOM)
		}, wantCode: "E0100"},
		{name: "map body other key", finder: DefaultFinder, build: func(lr plog.LogRecord) {
			lr.Body().SetEmptyMap().PutStr("text", bufferOOM)
		}},
		{name: "exception.message", finder: DefaultFinder, build: func(lr plog.LogRecord) {
			lr.Body().SetStr("train step failed")
			lr.Attributes().PutStr("exception.message", compileOOM)
		}, wantCode: "E1000"},
		{name: "body wins over attribute", finder: DefaultFinder, build: func(lr plog.LogRecord) {
			lr.Body().SetStr(bufferOOM)
			lr.Attributes().PutStr("exception.message", compileOOM)
		}, wantCode: "E0100"},
		{name: "body not searched", finder: func() Finder {
			f := DefaultFinder()
			f.SearchBody = false
			return f
		}, build: func(lr plog.LogRecord) { lr.Body().SetStr(bufferOOM) }},
		{name: "non-string attribute", finder: DefaultFinder, build: func(lr plog.LogRecord) {
			lr.Attributes().PutEmptySlice("exception.message").AppendEmpty().SetStr(bufferOOM)
		}},
		{name: "over the scan limit", finder: func() Finder {
			f := DefaultFinder()
			f.MaxScanSize = 64
			return f
		}, build: func(lr plog.LogRecord) { lr.Body().SetStr(bufferOOM) }},
		{name: "bytes over the scan limit", finder: func() Finder {
			f := DefaultFinder()
			f.MaxScanSize = 64
			return f
		}, build: func(lr plog.LogRecord) { lr.Body().SetEmptyBytes().FromRaw([]byte(bufferOOM)) }},
		{name: "empty record", finder: DefaultFinder, build: func(plog.LogRecord) {}},
		{name: "ordinary line", finder: DefaultFinder, build: func(lr plog.LogRecord) {
			lr.Body().SetStr("I1122 10:02:03.123456 140234 train.py:211] step 1200 loss=2.38 " + strings.Repeat("x", 100))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := plog.NewLogRecord()
			tt.build(lr)
			before := plog.NewLogRecord()
			lr.CopyTo(before)
			f := tt.finder()
			r, ok := f.Find(lr)
			assert.Equal(t, tt.wantCode != "", ok)
			assert.Equal(t, tt.wantCode, r.Code)
			assert.Equal(t, before.Body().AsRaw(), lr.Body().AsRaw(), "Find never modifies the record")
		})
	}
}

func TestValidate(t *testing.T) {
	f := DefaultFinder()
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
