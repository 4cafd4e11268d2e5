// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
)

func TestFactoryType(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, metadata.Type, f.Type())
	assert.Equal(t, "xla_oom", f.Type().String())
	assert.Equal(t, component.StabilityLevelAlpha, f.LogsStability())
}

// The defaults are the documented ones (README, "Processor settings") and valid.
func TestDefaultConfig(t *testing.T) {
	cfg, ok := NewFactory().CreateDefaultConfig().(*Config)
	require.True(t, ok)
	require.NoError(t, confmap.Validate(cfg))
	assert.True(t, cfg.SearchBody)
	assert.Equal(t, []string{"message", "msg", "log", "body"}, cfg.BodyKeys)
	assert.Equal(t, []string{"exception.message", "exception.stacktrace"}, cfg.Attributes)
	assert.Equal(t, 1<<20, cfg.MaxScanSize)
	assert.True(t, cfg.SetSeverity)
	assert.True(t, cfg.MemoryWarnings)
	assert.Equal(t, 5, cfg.TopAllocations)
	assert.Equal(t, time.Minute, cfg.IncidentWindow)
}

// Only logs are supported; the processor writes to records, so it must say
// it mutates data (the pipeline then clones shared batches for it).
func TestCreateLogsProcessor(t *testing.T) {
	f := NewFactory()
	set := processortest.NewNopSettings(metadata.Type)
	p, err := f.CreateLogs(context.Background(), set, f.CreateDefaultConfig(), consumertest.NewNop())
	require.NoError(t, err)
	assert.True(t, p.Capabilities().MutatesData)
	require.NoError(t, p.Start(context.Background(), nil))
	require.NoError(t, p.Shutdown(context.Background()))

	_, err = f.CreateMetrics(context.Background(), set, f.CreateDefaultConfig(), consumertest.NewNop())
	assert.Error(t, err, "metrics are not supported")
	_, err = f.CreateTraces(context.Background(), set, f.CreateDefaultConfig(), consumertest.NewNop())
	assert.Error(t, err, "traces are not supported")
}
