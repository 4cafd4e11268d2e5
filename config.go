// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/confmap"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/keylist"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
)

// Config says where the processor looks for XLA OOM text and how it tags.
type Config struct {
	oomrecord.Sources `mapstructure:",squash"` // search_body, body_keys, attributes, max_scan_size

	// SetSeverity sets SeverityNumber ERROR (and text "ERROR" when empty) on a tagged record without severity.
	SetSeverity bool `mapstructure:"set_severity"`

	// TopAllocations is how many largest allocations xla.oom.allocations lists (at most 100; 0 lists none, the
	// culprit and the largest input are written anyway).
	TopAllocations int `mapstructure:"top_allocations"`

	// MemoryWarnings tags records that hold no OOM but a memory-pressure warning (never xla.error.code).
	MemoryWarnings bool `mapstructure:"memory_warnings"`

	// IncidentResourceAttributes identify a job in xla.oom.incident.id, so every host's copy of one failure shares
	// it; the same setting as the connector's, which counts these incidents.
	IncidentResourceAttributes []string `mapstructure:"incident_resource_attributes"`

	// IncidentWindow is the length of the time buckets of xla.oom.incident.id.
	IncidentWindow time.Duration `mapstructure:"incident_window"`

	// FailureQuietInterval closes a failure no raised status closes after this long with no record from its stream.
	FailureQuietInterval time.Duration `mapstructure:"failure_quiet_interval"`

	// HostKillTails also reads host kill lines without the prefilter's keys (Slurm's, systemd's, kubelet's) by how
	// they end (hostoom.EndsWithTail). On by default: a record whose last byte ends no such line pays one table
	// look-up, under 1 % of an ordinary record (BENCHMARKS.md, "Host kills by default").
	HostKillTails bool `mapstructure:"host_kill_tails"`

	// Repeats configures the repeat rule: a failure of a later attempt of the same job, failing the same way, is futile.
	Repeats RepeatsConfig `mapstructure:"repeats"`

	_ struct{} // prevent unkeyed literals
}

// RepeatsConfig configures the job history the repeat rule reads (docs/incidents.md, "Repeats").
type RepeatsConfig struct {
	// Enabled turns the rule on; off, no failure is futile for repeating an earlier attempt.
	Enabled bool `mapstructure:"enabled"`
	// JobAttributes are the resource attributes that name a job; a failure whose resource carries none has no history.
	JobAttributes []string `mapstructure:"job_attributes"`
	// TTL forgets a job with no failure for that long: it must cover a Slurm requeue's wait.
	TTL time.Duration `mapstructure:"ttl"`
	// MaxJobs bounds the jobs remembered (8 failures each); past it, the job heard of longest ago is forgotten.
	MaxJobs int `mapstructure:"max_jobs"`
}

func createDefaultConfig() *Config {
	return &Config{
		Sources:                    oomrecord.DefaultSources(),
		IncidentResourceAttributes: incident.DefaultResourceAttributes(),
		IncidentWindow:             incident.DefaultWindow,
		SetSeverity:                true,
		MemoryWarnings:             true,
		TopAllocations:             oomattr.DefaultTopAllocations,
		FailureQuietInterval:       assembly.DefaultQuiet,
		HostKillTails:              true,
		Repeats: RepeatsConfig{Enabled: true, JobAttributes: incident.DefaultRepeatJobAttributes(),
			TTL: assembly.DefaultHistoryTTL, MaxJobs: assembly.DefaultMaxJobs},
	}
}

// Bounds of the settings: a failure's alert waits at most maxFailureQuietInterval.
const (
	maxTopAllocations       = 100
	maxFailureQuietInterval = 10 * time.Minute
	maxRepeatJobs           = 1 << 20
)

var _ confmap.Validator = (*Config)(nil)

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
	if c.Repeats.Enabled {
		if len(c.Repeats.JobAttributes) == 0 {
			errs = append(errs, errors.New("repeats::job_attributes: must name at least one attribute while repeats are enabled"))
		}
		errs = append(errs, keylist.Validate("repeats::job_attributes", c.Repeats.JobAttributes)...)
		if c.Repeats.TTL <= 0 {
			errs = append(errs, fmt.Errorf("repeats::ttl: must be positive, got %s", c.Repeats.TTL))
		}
		if c.Repeats.MaxJobs <= 0 || c.Repeats.MaxJobs > maxRepeatJobs {
			errs = append(errs, fmt.Errorf("repeats::max_jobs: must be between 1 and %d, got %d", maxRepeatJobs, c.Repeats.MaxJobs))
		}
	}
	return errors.Join(errs...)
}
