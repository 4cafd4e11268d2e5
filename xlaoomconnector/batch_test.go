// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
)

// TestBatchNeverStraddlesAnEmission starts an emission at the moment a batch
// is being added to the state (from the clock, which ConsumeLogs reads under
// the lock) and checks that the emission holds the whole batch: its
// per-host errors, its incidents and its warnings, exactly what an emission
// after ConsumeLogs returns holds.
func TestBatchNeverStraddlesAnEmission(t *testing.T) {
	newBatch := func(base time.Time) plog.Logs {
		ld := multiHostLogs(64, base, true)                                                     // 66 OOM records on 66 resources, 3 incidents
		readLogs(t, "warnings", "input.yaml").ResourceLogs().MoveAndAppendTo(ld.ResourceLogs()) // warnings of two jobs
		return ld
	}

	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	var started sync.Once
	emitted := make(chan error, 1)
	c.now = func() time.Time {
		if c.mu.TryLock() {
			c.mu.Unlock() // not under the lock: the batch is still being read
		} else {
			// ConsumeLogs holds the lock: an emission now must wait for all of it.
			started.Do(func() { go func() { emitted <- c.emit(context.Background()) }() })
		}
		return clk.Now()
	}
	require.NoError(t, c.ConsumeLogs(context.Background(), newBatch(clk.Now())))
	require.NoError(t, <-emitted, "the emission started while the batch was added")
	require.Len(t, sink.AllMetrics(), 1)
	raced := sink.AllMetrics()[0]

	refSink := new(consumertest.MetricsSink)
	ref, refClk := newTestConnector(t, incidentConfig(), settings(), refSink)
	want := consumeAndEmit(t, ref, refSink, newBatch(refClk.Now()))
	assert.Equal(t, int64(67), sumErrors(want))
	assert.Equal(t, map[string]int64{"trainer": 3, "evaluator": 1}, incidentsBy(want))
	warnings, _ := warningsBy(want)
	assert.Len(t, warnings, 3)
	require.NoError(t, pmetrictest.CompareMetrics(want, raced))
}
