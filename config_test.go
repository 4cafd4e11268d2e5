package xlaoomprocessor

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/xlaoom/xlaoomprocessor/internal/incidentwindow"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	tests := []struct {
		name    string
		want    *Config
		wantErr string // substring of the validation error; it must name the field
	}{
		{name: "", want: createDefaultConfig()},
		{
			name: "custom",
			want: &Config{
				Finder: oomrecord.Finder{
					SearchBody:  true,
					BodyKeys:    []string{"message", "event"},
					Attributes:  []string{"exception.message"},
					MaxScanSize: 65536,
				},
				SetSeverity:    false,
				MemoryWarnings: true,
				TopAllocations: defaultTopAllocations,
				IncidentWindow: incidentwindow.Default,
			},
		},
		{
			name: "attributes_only",
			want: func() *Config {
				c := createDefaultConfig()
				c.SearchBody = false
				c.Attributes = []string{"exception.stacktrace"}
				return c
			}(),
		},
		{
			name: "no_memory_warnings",
			want: func() *Config {
				c := createDefaultConfig()
				c.MemoryWarnings = false
				return c
			}(),
		},
		{name: "scan_size_zero", wantErr: "max_scan_size: must be between 1 and 67108864 bytes, got 0"},
		{name: "scan_size_huge", wantErr: "max_scan_size: must be between 1 and 67108864 bytes, got 1073741824"},
		{name: "reads_nothing", wantErr: "search_body: is false and attributes is empty"},
		{name: "empty_body_key", wantErr: "body_keys[1]: must not be empty"},
		{name: "duplicate_attribute", wantErr: `attributes[1]: "exception.message" is listed twice`},
	}
	for _, tt := range tests {
		t.Run("xla_oom/"+tt.name, func(t *testing.T) {
			cfg := NewFactory().CreateDefaultConfig()
			sub, err := cm.Sub(component.NewIDWithName(metadata.Type, tt.name).String())
			require.NoError(t, err)
			require.NoError(t, sub.Unmarshal(cfg))
			if tt.wantErr != "" {
				assert.ErrorContains(t, confmap.Validate(cfg), tt.wantErr)
				return
			}
			require.NoError(t, confmap.Validate(cfg))
			assert.Equal(t, tt.want, cfg)
		})
	}
}

func TestUnknownFieldIsRejected(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	sub, err := cm.Sub(component.NewIDWithName(metadata.Type, "unknown_field").String())
	require.NoError(t, err)
	err = sub.Unmarshal(NewFactory().CreateDefaultConfig())
	assert.ErrorContains(t, err, "max_scan_bytes")
}

func TestDefaultConfigIsValid(t *testing.T) {
	cfg := createDefaultConfig()
	require.NoError(t, confmap.Validate(cfg))
	assert.True(t, cfg.SearchBody)
	assert.Equal(t, []string{"message", "msg", "log", "body"}, cfg.BodyKeys)
	assert.Equal(t, []string{"exception.message", "exception.stacktrace"}, cfg.Attributes)
	assert.Equal(t, 1<<20, cfg.MaxScanSize)
	assert.True(t, cfg.SetSeverity)
}
