// Package oomrecord finds the XLA OOM text of a log record: the body (string,
// UTF-8 bytes or map keys) and chosen attributes. The processor and the
// connector share it so that both read a record the same way.
package oomrecord

import (
	"unicode/utf8"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Finder says where to look. The zero value reads nothing.
type Finder struct {
	// SearchBody reads a string body, a bytes body that is valid UTF-8, and the
	// BodyKeys of a map body.
	SearchBody bool
	BodyKeys   []string
	// Attributes are record attributes whose string values are read after the body.
	Attributes []string
	// MaxScanSize bounds the work: a longer text is not read.
	MaxScanSize int
}

// Find reads the record's sources in order and returns the first XLA OOM found.
// It does not modify the record.
func (f *Finder) Find(lr plog.LogRecord) (oom.Report, bool) {
	if f.SearchBody {
		if r, ok := f.readBody(lr.Body()); ok {
			return r, true
		}
	}
	if len(f.Attributes) == 0 {
		return oom.Report{}, false
	}
	attrs := lr.Attributes()
	for _, key := range f.Attributes {
		if v, ok := attrs.Get(key); ok && v.Type() == pcommon.ValueTypeStr {
			if r, ok := f.read(v.Str()); ok {
				return r, true
			}
		}
	}
	return oom.Report{}, false
}

func (f *Finder) readBody(body pcommon.Value) (oom.Report, bool) {
	switch body.Type() {
	case pcommon.ValueTypeStr:
		return f.read(body.Str())
	case pcommon.ValueTypeBytes:
		if body.Bytes().Len() > f.MaxScanSize {
			return oom.Report{}, false
		}
		raw := body.Bytes().AsRaw() // a private copy, so the string view below stays valid
		if !utf8.Valid(raw) {
			return oom.Report{}, false
		}
		return f.read(unsafe.String(unsafe.SliceData(raw), len(raw)))
	case pcommon.ValueTypeMap:
		m := body.Map()
		for _, key := range f.BodyKeys {
			if v, ok := m.Get(key); ok && v.Type() == pcommon.ValueTypeStr {
				if r, ok := f.read(v.Str()); ok {
					return r, true
				}
			}
		}
	default:
	}
	return oom.Report{}, false
}

// read runs the cheap prefilter and, only when it matches, the full recogniser.
func (f *Finder) read(text string) (oom.Report, bool) {
	if len(text) > f.MaxScanSize || !oom.MayContain(text) {
		return oom.Report{}, false
	}
	return oom.Recognize(text)
}
