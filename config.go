package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"go.opentelemetry.io/collector/confmap"

	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
)

// Config says where the processor looks for XLA OOM text and how it tags.
type Config struct {
	// Finder holds search_body, body_keys, attributes and max_scan_size.
	oomrecord.Finder `mapstructure:",squash"`

	// SetSeverity sets SeverityNumber ERROR (and text "ERROR" when empty) on a
	// tagged record that has no severity.
	SetSeverity bool `mapstructure:"set_severity"`

	_ struct{} // prevent unkeyed literals
}

var _ confmap.Validator = (*Config)(nil)

func createDefaultConfig() *Config {
	return &Config{Finder: oomrecord.DefaultFinder(), SetSeverity: true}
}

// Validate checks the source settings; each error names its field.
func (c *Config) Validate() error {
	return c.Finder.Validate()
}
