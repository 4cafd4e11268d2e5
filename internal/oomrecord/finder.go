// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package oomrecord finds the XLA OOM text of a log record: the body (string,
// UTF-8 bytes or map keys) and chosen attributes. The processor and the
// connector share it so that both read a record the same way.
package oomrecord

import (
	"slices"
	"unicode/utf8"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Finder reads a record's sources in one order: the body, then the
// Attributes. The component's factory builds it once.
type Finder struct {
	sources    Sources
	recognizer *oom.Recognizer
	// attributeLens has bit min(n, 63) set for an n-byte Attributes key:
	// most attributes are passed over on their key's length alone.
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

// Scan is the only pass the 99.9 % of records get: it puts into into the
// texts of lr within MaxScanSize that pass the prefilter (hostoom.Recognizer) and reports
// whether there is any, reading the attributes in one pass.
func (f *Finder) Scan(lr plog.LogRecord, into *Candidates) bool {
	into.reset()
	s := &f.sources
	if s.SearchBody {
		// A string body (nearly every record) without the type switch: Str
		// is "" for every other type, and an empty text holds nothing.
		if body := lr.Body(); body.Str() != "" {
			f.offer(into, 0, body.Str())
		} else {
			f.scanBody(body, into)
		}
	}
	if len(s.Attributes) > 0 {
		for k, v := range lr.Attributes().All() {
			// The key first, by its length: it is in the attribute's own
			// slot, while its value's type lies behind one more pointer.
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

// scanBody offers the body's texts: a string, a UTF-8 bytes body, or the
// BodyKeys of a map body (ranked by their order).
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
		case oom.FoundFailure:
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
