// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package oomrecord finds the XLA OOM text of a log record (body, chosen
// attributes), one way for the processor and the connector.
package oomrecord

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/keylist"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Finder reads a record's sources in one order: the body, then the Attributes.
type Finder struct {
	sources    Sources
	recognizer *oom.Recognizer
	// attributeLens has bit min(n, 63) set for an n-byte Attributes key.
	attributeLens uint64
}

// NewFinder returns the Finder for sources (which it copies).
func NewFinder(sources Sources) *Finder {
	sources.BodyKeys = slices.Clone(sources.BodyKeys)
	sources.Attributes = slices.Clone(sources.Attributes)
	f := &Finder{sources: sources, recognizer: hostoom.Recognizer()}
	for _, k := range sources.Attributes {
		f.attributeLens |= lenBit(k)
	}
	return f
}

// Scan is the only pass of 99.9 % of records: it puts into into the texts of lr
// within MaxScanSize that pass the prefilter, and reports whether any did.
func (f *Finder) Scan(lr plog.LogRecord, into *Candidates) bool {
	into.n, into.more = 0, into.more[:0]
	s := &f.sources
	if s.SearchBody {
		// A string body without the type switch: Str is "" for other types.
		if body := lr.Body(); body.Str() != "" {
			f.offer(into, 0, body.Str())
		} else {
			f.scanBody(body, into)
		}
	}
	if len(s.Attributes) > 0 {
		for k, v := range lr.Attributes().All() {
			// The key's length first: the value's type is one pointer further.
			if f.attributeLens&lenBit(k) == 0 {
				continue
			}
			if i := slices.Index(s.Attributes, k); i >= 0 && v.Type() == pcommon.ValueTypeStr {
				f.offer(into, len(s.BodyKeys)+i, v.Str())
			}
		}
	}
	return into.n > 0
}

// scanBody offers a string or UTF-8 bytes body, or a map body's BodyKeys.
func (f *Finder) scanBody(body pcommon.Value, into *Candidates) {
	switch body.Type() {
	case pcommon.ValueTypeStr:
		f.offer(into, 0, body.Str())
	case pcommon.ValueTypeBytes:
		if body.Bytes().Len() > f.sources.MaxScanSize {
			return
		}
		raw := body.Bytes().AsRaw() // a private copy, so the string view below stays valid
		if utf8.Valid(raw) {
			f.offer(into, 0, unsafe.String(unsafe.SliceData(raw), len(raw)))
		}
	case pcommon.ValueTypeMap:
		m := body.Map()
		for i, key := range f.sources.BodyKeys {
			if v, ok := m.Get(key); ok && v.Type() == pcommon.ValueTypeStr {
				f.offer(into, i, v.Str())
			}
		}
	default:
	}
}

// lenBit is the bit of attributeLens for key.
func lenBit(key string) uint64 { return 1 << min(len(key), 63) }

// offer keeps text when it is within MaxScanSize and passes the prefilter.
func (f *Finder) offer(into *Candidates, rank int, text string) {
	if len(text) <= f.sources.MaxScanSize && f.recognizer.MayContain(text) {
		into.add(rank, text)
	}
}

// Read is the package's Read of the scanned texts.
func (f *Finder) Read(texts *Candidates, warnings bool) oom.Finding {
	var buf [4]string
	return Read(f.recognizer, texts.Texts(buf[:0]), warnings)
}

// Read returns the first failure of texts, else (warnings) their first
// memory-pressure warning; each text is flattened once.
func Read(r *oom.Recognizer, texts []string, warnings bool) oom.Finding {
	var first oom.Finding // the first warning, kept while a later text may hold a failure
	for _, text := range texts {
		found := r.Find(text, warnings && first.Found == oom.FoundNothing)
		switch found.Found {
		case oom.FoundReport:
			return found
		case oom.FoundWarning:
			first = found
		case oom.FoundNothing:
		}
	}
	return first
}

// Find is Scan, then Read.
func (f *Finder) Find(lr plog.LogRecord, warnings bool) oom.Finding {
	var texts Candidates
	if !f.Scan(lr, &texts) {
		return oom.Finding{}
	}
	return f.Read(&texts, warnings)
}

// Candidates are a record's texts that passed the prefilter, in source
// order; the first lives inline, so one on the stack allocates nothing.
type Candidates struct {
	first candidate
	more  []candidate
	n     int
}

// candidate is one text and its rank in source order.
type candidate struct {
	rank int
	text string
}

// Texts appends the texts to dst, in source order.
func (c *Candidates) Texts(dst []string) []string {
	for i := range c.n {
		dst = append(dst, c.at(i).text)
	}
	return dst
}

func (c *Candidates) at(i int) *candidate {
	if i == 0 {
		return &c.first
	}
	return &c.more[i-1]
}

// add inserts text at its rank; a rank taken keeps its first text.
func (c *Candidates) add(rank int, text string) {
	for i := range c.n {
		if c.at(i).rank == rank {
			return
		}
	}
	if c.n > 0 {
		c.more = append(c.more, candidate{})
	}
	i := c.n
	c.n++
	for ; i > 0 && c.at(i-1).rank > rank; i-- {
		*c.at(i) = *c.at(i - 1)
	}
	*c.at(i) = candidate{rank, text}
}

// Sources says where in a record to look (the processor's and connector's).
type Sources struct {
	// SearchBody reads a string body, a valid UTF-8 bytes body, a map body's BodyKeys.
	SearchBody bool `mapstructure:"search_body"`
	// BodyKeys are the keys of a map body whose string values are read, in order.
	BodyKeys []string `mapstructure:"body_keys"`
	// Attributes are record attributes whose string values are read after the
	// body (OpenTelemetry Python puts the exception text in exception.*).
	Attributes []string `mapstructure:"attributes"`
	// MaxScanSize bounds the work per text: a longer one is not read.
	MaxScanSize int `mapstructure:"max_scan_size"`
}

const (
	defaultMaxScanSize = 1 << 20  // 1 MiB: the longest real OOM record (a full breakdown and traceback) is far smaller
	maxMaxScanSize     = 64 << 20 // the largest scan limit accepted
)

// DefaultSources reads the body, a map body's usual keys, the exception attributes.
func DefaultSources() Sources {
	return Sources{
		SearchBody:  true,
		BodyKeys:    []string{"message", "msg", "log", "body"},
		Attributes:  []string{"exception.message", "exception.stacktrace"},
		MaxScanSize: defaultMaxScanSize,
	}
}

// Validate rejects settings that would read nothing or do unbounded work.
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
