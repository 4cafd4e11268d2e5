// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Real texts: a compile-time HBM OOM (OpenXLA error page E1000) and a
// rematerialization warning (oom/testdata/real/jit_temps.stderr.txt).
const (
	compileOOM = `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.`
	rematWarn  = `W1122 10:52:37.476699     622 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally`
)

// TestEventNames: a failure is the event xla.oom with its verdict and
// action, a warning xla.memory.warning with neither; a record that already
// has an event name keeps it.
func TestEventNames(t *testing.T) {
	p := newTestProcessor(createDefaultConfig(), nil)
	for _, tc := range []struct {
		name, body, own, wantEvent string
		wantTagging                tagging
	}{
		{"failure", compileOOM, "", oomattr.EventStatement, taggedOOM},
		{"warning", rematWarn, "", oomattr.EventWarning, taggedWarning},
		{"failure with its own event name", compileOOM, "app.crash", "app.crash", taggedOOM},
		{"warning with its own event name", rematWarn, "app.log", "app.log", taggedWarning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := plog.NewLogRecord()
			lr.Body().SetStr(tc.body)
			lr.SetEventName(tc.own)
			_, got := p.tag(plog.NewResourceLogs(), lr, &batch{now: time.Now()})
			require.Equal(t, tc.wantTagging, got)
			assert.Equal(t, tc.wantEvent, lr.EventName())
			retry, hasRetry := lr.Attributes().Get(oomattr.Retry)
			action, hasAction := lr.Attributes().Get(oomattr.Action)
			if tc.wantTagging == taggedWarning {
				assert.False(t, hasRetry, "a warning carries no verdict")
				assert.False(t, hasAction, "a warning carries no action")
				return
			}
			assert.Equal(t, oom.RetryFutile, retry.Str())
			assert.Equal(t, oom.ActionShrinkFootprint, action.Str())
		})
	}
}

// TestOrdinaryRecordsGetNoEventName: a record that is neither keeps its
// (empty) event name.
func TestOrdinaryRecordsGetNoEventName(t *testing.T) {
	p := newTestProcessor(createDefaultConfig(), nil)
	lr := plog.NewLogRecord()
	lr.Body().SetStr(`I1122 10:52:18.689812     413 service.cc:170]   StreamExecutor [0]: NVIDIA H100 80GB HBM3, Compute Capability 9.0a (Driver: 13.0.0[580.159.4]; Runtime: 13.0.0; Toolkit: 13.0.0; DNN: 9.19.0)`) // oom/testdata/real, a device line
	p.tag(plog.NewResourceLogs(), lr, &batch{now: time.Now()})
	assert.Empty(t, lr.EventName())
	assert.Zero(t, lr.Attributes().Len())
}

// TestEveryTaggedRecordHasItsEvent: over every input of the golden tests, a
// failure record has a verdict, an action and the event xla.oom; a warning
// record has neither and the event xla.memory.warning; any other record has
// no event name.
func TestEveryTaggedRecordHasItsEvent(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "logs", "*", "input.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	failures, warnings := 0, 0
	for _, in := range inputs {
		ld, err := golden.ReadLogs(in)
		require.NoError(t, err)
		// A record tagged upstream is left as it is: only the processor's own count.
		var upstream []bool
		for _, rl := range ld.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					upstream = append(upstream, oomattr.Tagged(lr.Attributes()) || oomattr.Warned(lr.Attributes()))
				}
			}
		}
		out := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), ld)
		i := -1
		for _, rl := range out.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					if lr.EventName() == oomattr.EventFailure {
						continue // a failure record the processor made (processor_failure_test.go)
					}
					if i++; upstream[i] {
						continue
					}
					_, retry := lr.Attributes().Get(oomattr.Retry)
					_, action := lr.Attributes().Get(oomattr.Action)
					switch {
					case oomattr.Tagged(lr.Attributes()):
						failures++
						assert.True(t, retry && action, "%s: a failure without verdict or action", in)
						assert.Equal(t, oomattr.EventStatement, lr.EventName(), in)
					case oomattr.Warned(lr.Attributes()):
						warnings++
						assert.False(t, retry || action, "%s: a warning with a verdict or an action", in)
						assert.Equal(t, oomattr.EventWarning, lr.EventName(), in)
					default:
						assert.Empty(t, lr.EventName(), in)
					}
				}
			}
		}
	}
	t.Logf("%d failure records, %d warning records", failures, warnings)
	assert.Positive(t, failures)
	assert.Positive(t, warnings)
}
