// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
)

// TestForeignRecordsUntouched: every out-of-memory message of another
// program (oom/testdata/foreign/oom_messages.txt) comes out of the processor
// exactly as it went in: no attribute, no severity.
func TestForeignRecordsUntouched(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("oom", "testdata", "foreign", "oom_messages.txt"))
	require.NoError(t, err)
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for _, block := range strings.Split(string(data), "\n### ")[1:] {
		_, text, _ := strings.Cut(block, "\n")
		lrs.AppendEmpty().Body().SetStr(strings.TrimRight(text, "\n"))
	}
	require.Greater(t, lrs.Len(), 30)
	got := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), ld)
	out := got.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	require.Equal(t, lrs.Len(), out.Len())
	for i := range out.Len() {
		lr := out.At(i)
		assert.Zero(t, lr.Attributes().Len(), "%.80s", lr.Body().Str())
		assert.Zero(t, lr.SeverityNumber(), "%.80s", lr.Body().Str())
	}
}
