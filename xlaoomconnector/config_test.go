// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// loadConfig unmarshals the named entry of testdata/config.yaml over the defaults.
func loadConfig(t *testing.T, name string) (*Config, error) {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	id := component.NewID(metadata.Type)
	if name != "" {
		id = component.NewIDWithName(metadata.Type, name)
	}
	sub, err := cm.Sub(id.String())
	require.NoError(t, err)
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	return cfg, sub.Unmarshal(cfg)
}

func TestLoadConfig(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		cfg, err := loadConfig(t, "")
		require.NoError(t, err)
		require.NoError(t, confmap.Validate(cfg))
		assert.Equal(t, createDefaultConfig(), cfg)
		assert.Equal(t, oomrecord.DefaultSources(), cfg.Sources)
		assert.Equal(t, TemporalityCumulative, cfg.AggregationTemporality)
		assert.Equal(t, 30*time.Second, cfg.EmitInterval)
		assert.Equal(t, 15*time.Minute, cfg.SeriesExpiry)
		assert.Equal(t, 2000, cfg.SeriesLimit)
		assert.Empty(t, cfg.Dimensions)
		assert.Equal(t, [numMetrics]bool{true, true, true, true, true, true, true, true}, cfg.Metrics.enabled())
		require.Len(t, cfg.Buckets, 21)
		assert.Equal(t, float64(1<<20), cfg.Buckets[0], "1 MiB")
		assert.Equal(t, float64(1<<40), cfg.Buckets[20], "1 TiB")
		for i := 1; i < len(cfg.Buckets); i++ {
			assert.LessOrEqual(t, cfg.Buckets[i], 2*cfg.Buckets[i-1], "steps of at most 2x")
		}
	})
	t.Run("custom", func(t *testing.T) {
		cfg, err := loadConfig(t, "custom")
		require.NoError(t, err)
		require.NoError(t, confmap.Validate(cfg))
		want := createDefaultConfig()
		want.Sources = oomrecord.Sources{
			SearchBody: true, BodyKeys: []string{"message"}, Attributes: []string{"exception.message"}, MaxScanSize: 65536,
		}
		want.AggregationTemporality = TemporalityDelta
		want.EmitInterval = 10 * time.Second
		want.SeriesExpiry = time.Hour
		want.SeriesLimit = 100
		want.Buckets = []float64{1 << 20, 1 << 30, 1 << 40}
		want.Dimensions = []string{"xla.program.name", "xla.backend", "xla.memory.space"}
		want.Metrics.XlaOomPressure.Enabled = false
		want.Metrics.XlaOomShortfallSize.Enabled = false
		// The generated metric configs remember whether the user set enabled,
		// so compare what matters rather than the private flags.
		assert.Equal(t, [numMetrics]bool{true, true, false, false, true, true, false, true}, cfg.Metrics.enabled())
		want.Metrics, cfg.Metrics = MetricsConfig{}, MetricsConfig{}
		assert.Equal(t, want, cfg)
	})
	t.Run("warnings_only", func(t *testing.T) {
		cfg, err := loadConfig(t, "warnings_only")
		require.NoError(t, err)
		require.NoError(t, confmap.Validate(cfg), "the early-warning metrics alone are a valid connector")
		assert.Equal(t, [numMetrics]bool{false, false, false, false, false, true, true, false}, cfg.Metrics.enabled())
	})
}

func TestLoadConfigInvalid(t *testing.T) {
	cases := []struct {
		name string
		want []string // substrings of the error; each names the field
	}{
		{"temporality_unknown", []string{`aggregation_temporality: must be "cumulative" or "delta", got "Cumulative"`}},
		{"interval_zero", []string{"emit_interval: must be at least 100ms, got 0s"}},
		{"interval_negative", []string{"emit_interval: must be at least 100ms, got -1s"}},
		{"interval_busy", []string{"emit_interval: must be at least 100ms, got 1ns"}},
		{"incident_attributes_empty", []string{"incident_resource_attributes: must name at least one attribute"}},
		{"expiry_below_interval", []string{"series_expiry: must be at least emit_interval (1m0s), got 30s"}},
		{"series_limit_zero", []string{"series_limit: must be at least 1, got 0"}},
		{"buckets_empty", []string{"buckets: must list at least one bound"}},
		{"buckets_not_increasing", []string{
			"buckets[2]: must be greater than buckets[1] (4.194304e+06), got 4.194304e+06",
			"buckets[3]: must be greater than buckets[2] (4.194304e+06), got 1024",
		}},
		{"buckets_not_positive", []string{"buckets[0]: must be a positive finite number of bytes, got 0"}},
		{"dimension_unknown", []string{`dimensions[1]: unknown dimension "exception.message", must be one of ["xla.program.name" "xla.backend" "xla.memory.space"]`}},
		{"dimension_twice", []string{`dimensions[1]: "xla.backend" is listed twice`}},
		{"all_metrics_disabled", []string{"metrics: every metric is disabled"}},
		{"scan_size_zero", []string{"max_scan_size: must be between 1 and"}},
		{"reads_nothing", []string{"search_body: is false and attributes is empty"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadConfig(t, tc.name)
			require.NoError(t, err)
			err = confmap.Validate(cfg)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestLoadConfigUnknownKeys(t *testing.T) {
	for _, name := range []string{"unknown_field", "unknown_metric"} {
		t.Run(name, func(t *testing.T) {
			_, err := loadConfig(t, name)
			require.Error(t, err)
			assert.ErrorContains(t, err, "has invalid keys")
		})
	}
}

func TestValidateJoinsAllErrors(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.EmitInterval = 0
	cfg.SeriesExpiry = -time.Second
	cfg.SeriesLimit = -1
	cfg.Buckets = []float64{-1}
	err := cfg.Validate()
	for _, field := range []string{"emit_interval:", "series_expiry:", "series_limit:", "buckets[0]:"} {
		assert.ErrorContains(t, err, field)
	}
}
