// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomrecord

import (
	"errors"
	"fmt"

	"github.com/xlaoom/xlaoomprocessor/internal/keylist"
)

// Sources says where in a record to look: the part of the processor's and
// the connector's configuration that NewFinder turns into a Finder.
type Sources struct {
	// SearchBody reads a string body, a bytes body that is valid UTF-8, and the
	// BodyKeys of a map body.
	SearchBody bool `mapstructure:"search_body"`
	// BodyKeys are the keys of a map body whose string values are read, in order.
	BodyKeys []string `mapstructure:"body_keys"`
	// Attributes are record attributes whose string values are read after the
	// body. The OpenTelemetry Python logging handler puts the exception text in
	// exception.message and exception.stacktrace and only a short message in the body.
	Attributes []string `mapstructure:"attributes"`
	// MaxScanSize bounds the work per text: a longer one is not read.
	MaxScanSize int `mapstructure:"max_scan_size"`
}

const (
	defaultMaxScanSize = 1 << 20  // 1 MiB: the longest real OOM record (a full breakdown and traceback) is far smaller
	maxMaxScanSize     = 64 << 20 // the largest scan limit accepted
)

// DefaultSources reads the body, the usual message keys of a map body and
// the exception attributes.
func DefaultSources() Sources {
	return Sources{
		SearchBody:  true,
		BodyKeys:    []string{"message", "msg", "log", "body"},
		Attributes:  []string{"exception.message", "exception.stacktrace"},
		MaxScanSize: defaultMaxScanSize,
	}
}

// Validate rejects settings that would read nothing or do unbounded work.
// Every error names the field.
func (s *Sources) Validate() error {
	var errs []error
	if s.MaxScanSize <= 0 || s.MaxScanSize > maxMaxScanSize {
		errs = append(errs, fmt.Errorf("max_scan_size: must be between 1 and %d bytes, got %d", maxMaxScanSize, s.MaxScanSize))
	}
	if !s.SearchBody && len(s.Attributes) == 0 {
		errs = append(errs, errors.New("search_body: is false and attributes is empty, so no record would ever be read"))
	}
	errs = append(errs, keylist.Validate("body_keys", s.BodyKeys)...)
	errs = append(errs, keylist.Validate("attributes", s.Attributes)...)
	return errors.Join(errs...)
}
