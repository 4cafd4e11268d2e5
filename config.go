// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/confmap"

	"github.com/xlaoom/xlaoomprocessor/internal/incidentwindow"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
)

// Config says where the processor looks for XLA OOM text and how it tags.
type Config struct {
	// Sources holds search_body, body_keys, attributes and max_scan_size.
	oomrecord.Sources `mapstructure:",squash"`

	// SetSeverity sets SeverityNumber ERROR (and text "ERROR" when empty) on a
	// tagged record that has no severity.
	SetSeverity bool `mapstructure:"set_severity"`

	// TopAllocations is how many of a breakdown's largest allocations are
	// listed in xla.oom.allocations (0 lists none; the culprit and the
	// largest input are written anyway). At most 100.
	TopAllocations int `mapstructure:"top_allocations"`

	// MemoryWarnings tags records that hold no OOM but a memory-pressure
	// warning (xla.memory.warning and its sizes, never xla.error.code).
	MemoryWarnings bool `mapstructure:"memory_warnings"`

	// IncidentWindow is the length of the time buckets that group the copies
	// of one failure logged by many hosts into one xla.oom.incident.id.
	IncidentWindow time.Duration `mapstructure:"incident_window"`

	_ struct{} // prevent unkeyed literals
}

var _ confmap.Validator = (*Config)(nil)

func createDefaultConfig() *Config {
	return &Config{
		Sources:        oomrecord.DefaultSources(),
		SetSeverity:    true,
		MemoryWarnings: true,
		TopAllocations: defaultTopAllocations,
		IncidentWindow: incidentwindow.Default,
	}
}

// Defaults of the optional settings.
const (
	defaultTopAllocations = 5
	maxTopAllocations     = 100
)

// Validate checks the settings; each error names its field.
func (c *Config) Validate() error {
	var errs []error
	if err := c.Sources.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.TopAllocations < 0 || c.TopAllocations > maxTopAllocations {
		errs = append(errs, fmt.Errorf("top_allocations: must be between 0 and %d, got %d", maxTopAllocations, c.TopAllocations))
	}
	if err := incidentwindow.Validate(c.IncidentWindow); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
