// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
)

// TestLoadConfig loads every entry of testdata/config.yaml the way the
// collector does (unmarshal, then confmap.Validate). A valid entry must give
// the expected Config; an invalid one must fail with an error that contains
// wantErr, which always names the offending field.
func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	for _, tt := range configCases {
		t.Run("xla_oom/"+tt.name, func(t *testing.T) {
			cfg := NewFactory().CreateDefaultConfig()
			sub, err := cm.Sub(component.NewIDWithName(metadata.Type, tt.name).String())
			require.NoError(t, err)
			err = sub.Unmarshal(cfg)
			if err == nil {
				err = confmap.Validate(cfg)
			}
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg)
		})
	}
}

// configCases are the entries of testdata/config.yaml, by name.
var configCases = []struct {
	name    string
	want    *Config
	wantErr string
}{
	{name: "", want: createDefaultConfig()},
	{
		name: "custom",
		want: &Config{
			Sources: oomrecord.Sources{
				SearchBody:  true,
				BodyKeys:    []string{"message", "event"},
				Attributes:  []string{"exception.message"},
				MaxScanSize: 65536,
			},
			SetSeverity:    false,
			MemoryWarnings: true,
			TopAllocations: oomattr.DefaultTopAllocations,
			IncidentWindow: incident.DefaultWindow,

			IncidentResourceAttributes: incident.DefaultResourceAttributes(),
			FailureQuietInterval:       assembly.DefaultQuiet,
			HostKillTails:              true,
			Repeats: RepeatsConfig{Enabled: true, JobAttributes: incident.DefaultRepeatJobAttributes(),
				TTL: assembly.DefaultHistoryTTL, MaxJobs: assembly.DefaultMaxJobs},
		},
	},
	{name: "failure_quiet_interval", want: withDefaults(func(c *Config) { c.FailureQuietInterval = 30 * time.Second })},
	{name: "host_kill_tails", want: withDefaults(func(c *Config) { c.HostKillTails = false })},
	{name: "repeats_off", want: withDefaults(func(c *Config) { c.Repeats.Enabled, c.Repeats.JobAttributes = false, []string{} })},
	{name: "repeats_by_slurm", want: withDefaults(func(c *Config) {
		c.Repeats.JobAttributes, c.Repeats.TTL, c.Repeats.MaxJobs = []string{"slurm.job.id"}, 168*time.Hour, 100
	})},
	{name: "repeats_no_job_attributes", wantErr: "repeats::job_attributes: must name at least one attribute"},
	{name: "repeats_ttl_zero", wantErr: "repeats::ttl: must be positive, got 0s"},
	{name: "repeats_max_jobs_zero", wantErr: "repeats::max_jobs: must be between 1 and 1048576, got 0"},
	{name: "attributes_only", want: withDefaults(func(c *Config) {
		c.SearchBody = false
		c.Attributes = []string{"exception.stacktrace"}
	})},
	{name: "no_memory_warnings", want: withDefaults(func(c *Config) { c.MemoryWarnings = false })},
	{name: "breakdown_bounds", want: withDefaults(func(c *Config) {
		c.TopAllocations, c.IncidentWindow = maxTopAllocations, 5*time.Minute
	})},
	{name: "no_allocations_listed", want: withDefaults(func(c *Config) {
		c.TopAllocations, c.IncidentWindow = 0, time.Second
	})},
	{name: "incident_job_by_k8s", want: withDefaults(func(c *Config) {
		c.IncidentResourceAttributes = []string{"k8s.cluster.name", "k8s.namespace.name", "k8s.job.name"}
	})},

	{name: "scan_size_negative", wantErr: "max_scan_size"},
	{name: "scan_size_zero", wantErr: "max_scan_size: must be between 1 and 67108864 bytes, got 0"},
	{name: "scan_size_huge", wantErr: "max_scan_size: must be between 1 and 67108864 bytes, got 1073741824"},
	{name: "scan_size_just_over", wantErr: "max_scan_size: must be between 1 and 67108864 bytes, got 67108865"},
	{name: "scan_size_not_a_number", wantErr: "max_scan_size"},
	{name: "reads_nothing", wantErr: "search_body: is false and attributes is empty"},
	{name: "empty_body_key", wantErr: "body_keys[1]: must not be empty"},
	{name: "duplicate_body_key", wantErr: "body_keys[1]"},
	{name: "empty_attribute", wantErr: "attributes[0]"},
	{name: "duplicate_attribute", wantErr: `attributes[1]: "exception.message" is listed twice`},
	{name: "top_allocations_negative", wantErr: "top_allocations: must be between 0 and 100, got -1"},
	{name: "top_allocations_over", wantErr: "top_allocations: must be between 0 and 100, got 101"},
	{name: "incident_attributes_empty", wantErr: "incident_resource_attributes: must name at least one attribute"},
	{name: "incident_attributes_blank", wantErr: "incident_resource_attributes[1]: must not be empty"},
	{name: "incident_attributes_twice", wantErr: `incident_resource_attributes[1]: "k8s.job.name" is listed twice`},
	{name: "incident_window_zero", wantErr: "incident_window: must be positive, got 0s"},
	{name: "incident_window_negative", wantErr: "incident_window: must be positive, got -1m0s"},
	{name: "incident_window_not_a_duration", wantErr: "incident_window"},
	{name: "failure_quiet_interval_zero", wantErr: "failure_quiet_interval: must be above 0 and at most 10m0s, got 0s"},
	{name: "failure_quiet_interval_hour", wantErr: "failure_quiet_interval: must be above 0 and at most 10m0s, got 1h0m0s"},
	{name: "set_severity_not_a_bool", wantErr: "set_severity"},
	{name: "memory_warnings_not_a_bool", wantErr: "memory_warnings"},
	{name: "unknown_field", wantErr: "max_scan_bytes"},
}

func withDefaults(change func(*Config)) *Config {
	c := createDefaultConfig()
	change(c)
	return c
}

// Every entry of testdata/config.yaml has a case above, so a new setting's
// examples cannot be added to the file and silently go untested.
func TestEveryConfigEntryIsTested(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	tested := map[string]bool{}
	for _, tt := range configCases {
		tested[component.NewIDWithName(metadata.Type, tt.name).String()] = true
	}
	for entry := range cm.ToStringMap() {
		assert.True(t, tested[entry], "testdata/config.yaml entry %q has no case in configCases", entry)
	}
	assert.Len(t, tested, len(cm.ToStringMap()), "every case in configCases needs its entry in testdata/config.yaml")
}
