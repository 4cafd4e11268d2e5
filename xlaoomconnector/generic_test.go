// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// TestCountsGenericLikeAnyOOM: a failure only the last-resort layer reads,
// untagged or tagged upstream by the processor, counts as an OOM.
func TestCountsGenericLikeAnyOOM(t *testing.T) {
	const msg = `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from MORI memory`
	cfg := createDefaultConfig()
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	lrs.AppendEmpty().Body().SetStr(msg)
	tagged := lrs.AppendEmpty()
	tagged.Body().SetStr(msg)
	r, ok := oom.Recognize(msg)
	if !ok {
		t.Fatal("not recognised")
	}
	oomattr.Put(r, tagged.Attributes())

	sink := new(consumertest.MetricsSink)
	c, _ := newTestConnector(t, cfg, settings(), sink)
	assert.Equal(t, int64(2), sumErrors(consumeAndEmit(t, c, sink, ld)))
}
