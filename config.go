package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/confmap"

	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
)

const (
	defaultMaxScanSize = 1 << 20  // 1 MiB: the longest real OOM record (a full breakdown and traceback) is far smaller
	maxMaxScanSize     = 64 << 20 // the largest scan limit accepted
)

// Config says where the processor looks for XLA OOM text and how it tags.
type Config struct {
	// SearchBody makes the processor read a string body, a bytes body that is
	// valid UTF-8, and the BodyKeys of a map body.
	SearchBody bool `mapstructure:"search_body"`
	// BodyKeys are the keys of a map body whose string values are read, in order.
	BodyKeys []string `mapstructure:"body_keys"`
	// Attributes are record attributes whose string values are read, after the
	// body. The OpenTelemetry Python logging handler puts the exception text in
	// exception.message and exception.stacktrace and only a short message in the body.
	Attributes []string `mapstructure:"attributes"`
	// SetSeverity sets SeverityNumber ERROR (and text "ERROR") on a tagged record
	// that has no severity.
	SetSeverity bool `mapstructure:"set_severity"`
	// MaxScanSize bounds the work per text: a text longer than this many bytes
	// is not read, and its record passes through unchanged.
	MaxScanSize int `mapstructure:"max_scan_size"`

	_ struct{} // prevent unkeyed literals
}

var _ confmap.Validator = (*Config)(nil)

// finder turns the source settings into the shared record reader.
func (c *Config) finder() oomrecord.Finder {
	return oomrecord.Finder{SearchBody: c.SearchBody, BodyKeys: c.BodyKeys, Attributes: c.Attributes, MaxScanSize: c.MaxScanSize}
}

func createDefaultConfig() *Config {
	return &Config{
		SearchBody:  true,
		BodyKeys:    []string{"message", "msg", "log", "body"},
		Attributes:  []string{"exception.message", "exception.stacktrace"},
		SetSeverity: true,
		MaxScanSize: defaultMaxScanSize,
	}
}

// Validate rejects settings that would make the processor silently do nothing
// or unbounded work. Every error names the field.
func (c *Config) Validate() error {
	var errs []error
	if c.MaxScanSize <= 0 || c.MaxScanSize > maxMaxScanSize {
		errs = append(errs, fmt.Errorf("max_scan_size: must be between 1 and %d bytes, got %d", maxMaxScanSize, c.MaxScanSize))
	}
	if !c.SearchBody && len(c.Attributes) == 0 {
		errs = append(errs, errors.New("search_body: is false and attributes is empty, so no record would ever be read"))
	}
	errs = append(errs, validateKeys("body_keys", c.BodyKeys)...)
	errs = append(errs, validateKeys("attributes", c.Attributes)...)
	return errors.Join(errs...)
}

func validateKeys(field string, keys []string) []error {
	var errs []error
	seen := make(map[string]bool, len(keys))
	for i, k := range keys {
		switch {
		case strings.TrimSpace(k) == "":
			errs = append(errs, fmt.Errorf("%s[%d]: must not be empty", field, i))
		case seen[k]:
			errs = append(errs, fmt.Errorf("%s[%d]: %q is listed twice", field, i, k))
		}
		seen[k] = true
	}
	return errs
}
