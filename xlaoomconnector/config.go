// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"go.opentelemetry.io/collector/confmap"

	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// Aggregation temporalities accepted by aggregation_temporality.
const (
	TemporalityCumulative = "cumulative"
	TemporalityDelta      = "delta"
)

// Config of the xla_oom connector; README.md documents every setting.
type Config struct {
	// Sources is where an untagged record is searched for XLA OOM text; a tagged one is read from its attributes.
	oomrecord.Sources `mapstructure:",squash"`

	// RecognizeUntagged false (after the processor) makes an untagged record cost one attribute lookup.
	RecognizeUntagged bool `mapstructure:"recognize_untagged"`

	AggregationTemporality string `mapstructure:"aggregation_temporality"`

	// EmitInterval is how often the metrics are sent, and once on shutdown.
	EmitInterval time.Duration `mapstructure:"emit_interval"`

	// SeriesExpiry drops a series that no record updated for this long.
	SeriesExpiry time.Duration `mapstructure:"series_expiry"`

	// SeriesLimit is the most series each metric keeps; the rest go to one overflow series per metric.
	SeriesLimit int `mapstructure:"series_limit"`

	// Buckets are the bounds, in bytes, of the size histograms.
	Buckets []float64 `mapstructure:"buckets"`

	// Dimensions are opt-in attributes, off by default: program names have a high cardinality.
	Dimensions []string `mapstructure:"dimensions"`

	Metrics MetricsConfig `mapstructure:"metrics"`

	// IncidentResourceAttributes identify a job, so one failure logged by 64 hosts counts once; keep it equal
	// to the processor's setting of the same name.
	IncidentResourceAttributes []string `mapstructure:"incident_resource_attributes"`

	// IncidentWindow is the record-time gap that separates two incidents of a job (the processor's too).
	IncidentWindow time.Duration `mapstructure:"incident_window"`

	_ struct{} // prevent unkeyed literals
}

// MetricsConfig turns each metric on or off: the generated ones and the two histograms mdatagen cannot express.
type MetricsConfig struct {
	metadata.MetricsConfig `mapstructure:",squash"`
	XlaOomRequestedSize    MetricConfig `mapstructure:"xla.oom.requested.size"`
	XlaOomShortfallSize    MetricConfig `mapstructure:"xla.oom.shortfall.size"`
}

// MetricConfig turns one metric on or off.
type MetricConfig struct {
	Enabled bool `mapstructure:"enabled"`
}

// optionalDimensions are the attributes dimensions may name.
var optionalDimensions = []string{oomattr.Program, oomattr.Backend, oomattr.MemorySpace}

const (
	// minEmitInterval keeps a mistyped interval (1ns) from turning the emitter into a busy loop.
	minEmitInterval     = 100 * time.Millisecond
	defaultEmitInterval = 30 * time.Second
	defaultSeriesExpiry = 15 * time.Minute
	defaultSeriesLimit  = 2000
)

// defaultBuckets are powers of 2 from 1 MiB (a host buffer) to 1 TiB (a TPU slice's HBM).
func defaultBuckets() []float64 {
	b := make([]float64, 0, 21)
	for v := float64(1 << 20); v <= float64(1<<40); v *= 2 {
		b = append(b, v)
	}
	return b
}

var _ confmap.Validator = (*Config)(nil)

func createDefaultConfig() *Config {
	return &Config{
		Sources:                    oomrecord.DefaultSources(),
		RecognizeUntagged:          true,
		AggregationTemporality:     TemporalityCumulative,
		EmitInterval:               defaultEmitInterval,
		SeriesExpiry:               defaultSeriesExpiry,
		SeriesLimit:                defaultSeriesLimit,
		Buckets:                    defaultBuckets(),
		IncidentResourceAttributes: incident.DefaultResourceAttributes(),
		IncidentWindow:             incident.DefaultWindow,
		Metrics: MetricsConfig{
			MetricsConfig:       metadata.DefaultMetricsConfig(),
			XlaOomRequestedSize: MetricConfig{Enabled: true},
			XlaOomShortfallSize: MetricConfig{Enabled: true},
		},
	}
}

// Validate checks every setting; each error names its field.
func (c *Config) Validate() error {
	errs := []error{c.Sources.Validate()}
	switch c.AggregationTemporality {
	case TemporalityCumulative, TemporalityDelta:
	default:
		errs = append(errs, fmt.Errorf("aggregation_temporality: must be %q or %q, got %q",
			TemporalityCumulative, TemporalityDelta, c.AggregationTemporality))
	}
	if c.EmitInterval < minEmitInterval {
		errs = append(errs, fmt.Errorf("emit_interval: must be at least %s, got %s", minEmitInterval, c.EmitInterval))
	}
	if c.SeriesExpiry < c.EmitInterval {
		errs = append(errs, fmt.Errorf("series_expiry: must be at least emit_interval (%s), got %s", c.EmitInterval, c.SeriesExpiry))
	}
	if c.SeriesLimit < 1 {
		errs = append(errs, fmt.Errorf("series_limit: must be at least 1, got %d", c.SeriesLimit))
	}
	errs = append(errs, validateBuckets(c.Buckets)...)
	errs = append(errs, validateDimensions(c.Dimensions)...)
	errs = append(errs, incident.ValidateWindow(c.IncidentWindow))
	errs = append(errs, incident.ValidateResourceAttributes(c.IncidentResourceAttributes)...)
	if enabled := c.Metrics.enabled(); !slices.Contains(enabled[:], true) {
		errs = append(errs, errors.New("metrics: every metric is disabled, so the connector would emit nothing"))
	}
	return errors.Join(errs...)
}

func validateBuckets(b []float64) []error {
	if len(b) == 0 {
		return []error{errors.New("buckets: must list at least one bound")}
	}
	var errs []error
	for i, v := range b {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || v <= 0:
			errs = append(errs, fmt.Errorf("buckets[%d]: must be a positive finite number of bytes, got %v", i, v))
		case i > 0 && v <= b[i-1]:
			errs = append(errs, fmt.Errorf("buckets[%d]: must be greater than buckets[%d] (%v), got %v", i, i-1, b[i-1], v))
		}
	}
	return errs
}

func validateDimensions(dims []string) []error {
	var errs []error
	seen := make(map[string]bool, len(dims))
	for i, d := range dims {
		switch {
		case !slices.Contains(optionalDimensions, d):
			errs = append(errs, fmt.Errorf("dimensions[%d]: unknown dimension %q, must be one of %q", i, d, optionalDimensions))
		case seen[d]:
			errs = append(errs, fmt.Errorf("dimensions[%d]: %q is listed twice", i, d))
		}
		seen[d] = true
	}
	return errs
}
