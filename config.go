// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/confmap"

	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
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

	// IncidentResourceAttributes are the resource attributes that identify a
	// job in xla.oom.incident.id: the copies of one failure that every host
	// of the job logs share the id. Same setting, default and meaning as the
	// connector's, which counts these incidents in xla.oom.incidents.
	IncidentResourceAttributes []string `mapstructure:"incident_resource_attributes"`

	// IncidentWindow is the length of the time buckets of xla.oom.incident.id:
	// a job's failure records in one bucket share the id.
	IncidentWindow time.Duration `mapstructure:"incident_window"`

	// FailureQuietInterval closes a failure that no raised status closes
	// after this much wall-clock time with no record from its stream; its
	// failure record is sent then.
	FailureQuietInterval time.Duration `mapstructure:"failure_quiet_interval"`

	// HostKillTails also reads the host-memory kill lines that hold none of
	// the prefilter's keys (Slurm's, srun's, systemd's, kubelet's) by how
	// they end (hostoom.EndsWithTail): for a collector that reads such lines
	// as plain text and not the kernel's log. Off, an ordinary record costs
	// nothing more; on, about 8 % (BENCHMARKS.md).
	HostKillTails bool `mapstructure:"host_kill_tails"`

	_ struct{} // prevent unkeyed literals
}

var _ confmap.Validator = (*Config)(nil)

func createDefaultConfig() *Config {
	return &Config{
		Sources:        oomrecord.DefaultSources(),
		SetSeverity:    true,
		MemoryWarnings: true,
		TopAllocations: oomattr.DefaultTopAllocations,
		IncidentWindow: incident.DefaultWindow,

		FailureQuietInterval: failure.DefaultQuiet,

		IncidentResourceAttributes: incident.DefaultResourceAttributes(),
	}
}

// Defaults of the optional settings.
const (
	maxTopAllocations = 100
	// A failure's alert waits at most this long for a failure no raised
	// status closes.
	maxFailureQuietInterval = 10 * time.Minute
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
	errs = append(errs, incident.ValidateResourceAttributes(c.IncidentResourceAttributes)...)
	if err := incident.ValidateWindow(c.IncidentWindow); err != nil {
		errs = append(errs, err)
	}
	if c.FailureQuietInterval <= 0 || c.FailureQuietInterval > maxFailureQuietInterval {
		errs = append(errs, fmt.Errorf("failure_quiet_interval: must be above 0 and at most %s, got %s", maxFailureQuietInterval, c.FailureQuietInterval))
	}
	return errors.Join(errs...)
}
