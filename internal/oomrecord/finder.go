// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package oomrecord finds the XLA OOM text of a log record: the body (string,
// UTF-8 bytes or map keys) and chosen attributes. The processor and the
// connector share it so that both read a record the same way.
package oomrecord

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/keylist"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Finder says where to look. It is also the "where to look" part of the
// processor's and the connector's configuration, squashed into each.
type Finder struct {
	// SearchBody reads a string body, a bytes body that is valid UTF-8, and the
	// BodyKeys of a map body.
	SearchBody bool `mapstructure:"search_body"`
	// BodyKeys are the keys of a map body whose string values are read, in order.
	BodyKeys []string `mapstructure:"body_keys"`
	// Attributes are record attributes whose string values are read after the
	// body. The OpenTelemetry Python logging handler puts the exception text in
	// exception.message and exception.stacktrace and only a short message in the body.
	Attributes []string `mapstructure:"attributes"`
	// MaxScanSize bounds the work per text: a longer text is not read, and its
	// record passes through unchanged.
	MaxScanSize int `mapstructure:"max_scan_size"`
}

const (
	defaultMaxScanSize = 1 << 20  // 1 MiB: the longest real OOM record (a full breakdown and traceback) is far smaller
	maxMaxScanSize     = 64 << 20 // the largest scan limit accepted
)

// DefaultFinder reads the body, the usual message keys of a map body and the
// exception attributes.
func DefaultFinder() Finder {
	return Finder{
		SearchBody:  true,
		BodyKeys:    []string{"message", "msg", "log", "body"},
		Attributes:  []string{"exception.message", "exception.stacktrace"},
		MaxScanSize: defaultMaxScanSize,
	}
}

// Validate rejects settings that would read nothing or do unbounded work.
// Every error names the field.
func (f *Finder) Validate() error {
	var errs []error
	if f.MaxScanSize <= 0 || f.MaxScanSize > maxMaxScanSize {
		errs = append(errs, fmt.Errorf("max_scan_size: must be between 1 and %d bytes, got %d", maxMaxScanSize, f.MaxScanSize))
	}
	if !f.SearchBody && len(f.Attributes) == 0 {
		errs = append(errs, errors.New("search_body: is false and attributes is empty, so no record would ever be read"))
	}
	errs = append(errs, keylist.Validate("body_keys", f.BodyKeys)...)
	errs = append(errs, keylist.Validate("attributes", f.Attributes)...)
	return errors.Join(errs...)
}

// Find reads the record's sources in order and returns the first XLA OOM found.
// It does not modify the record.
func (f *Finder) Find(lr plog.LogRecord) (r oom.Report, found bool) {
	f.candidates(lr, func(text string) bool {
		r, found = oom.Recognize(text)
		return !found
	})
	return r, found
}

// MayContain reports whether any source Find reads passes the prefilter. It
// is what the processor asks of every record first: it touches no Report, so
// the 99.9 % of records that are not OOMs cost the prefilter and nothing else.
// It reads the same sources as candidates, in a cheaper order: the
// attributes in one pass rather than one Map.Get per configured key.
func (f *Finder) MayContain(lr plog.LogRecord) bool {
	if f.SearchBody {
		body := lr.Body()
		if body.Type() == pcommon.ValueTypeStr {
			if f.passes(body.Str()) {
				return true
			}
		} else if !f.bodyCandidates(body, func(text string) bool { return !f.passes(text) }) {
			return true
		}
	}
	if len(f.Attributes) == 0 {
		return false
	}
	for k, v := range lr.Attributes().All() {
		if v.Type() == pcommon.ValueTypeStr && slices.Contains(f.Attributes, k) && f.passes(v.Str()) {
			return true
		}
	}
	return false
}

// passes is the per-text prefilter: within MaxScanSize and oom.MayContain.
func (f *Finder) passes(text string) bool {
	return len(text) <= f.MaxScanSize && oom.MayContain(text)
}

// candidates calls yield, in source order, with every text of lr that is
// within MaxScanSize and passes oom.MayContain, until yield returns false.
// Find and MayContain share it, so both read a record the same way.
func (f *Finder) candidates(lr plog.LogRecord, yield func(text string) bool) {
	offer := func(text string) bool {
		return !f.passes(text) || yield(text)
	}
	if f.SearchBody && !f.bodyCandidates(lr.Body(), offer) {
		return
	}
	if len(f.Attributes) == 0 {
		return
	}
	attrs := lr.Attributes()
	for _, key := range f.Attributes {
		if v, ok := attrs.Get(key); ok && v.Type() == pcommon.ValueTypeStr && !offer(v.Str()) {
			return
		}
	}
}

// bodyCandidates offers the body's texts; false means stop.
func (f *Finder) bodyCandidates(body pcommon.Value, offer func(string) bool) bool {
	switch body.Type() {
	case pcommon.ValueTypeStr:
		return offer(body.Str())
	case pcommon.ValueTypeBytes:
		if body.Bytes().Len() > f.MaxScanSize {
			return true
		}
		raw := body.Bytes().AsRaw() // a private copy, so the string view below stays valid
		if !utf8.Valid(raw) {
			return true
		}
		return offer(unsafe.String(unsafe.SliceData(raw), len(raw)))
	case pcommon.ValueTypeMap:
		m := body.Map()
		for _, key := range f.BodyKeys {
			if v, ok := m.Get(key); ok && v.Type() == pcommon.ValueTypeStr && !offer(v.Str()) {
				return false
			}
		}
	default:
	}
	return true
}
