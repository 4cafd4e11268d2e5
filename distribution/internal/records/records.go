// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package records reads the JSON lines the file exporter writes (one OTLP/JSON
// request per line) back into flat log records; EachLine hands over the lines
// of any signal.
package records

import (
	"bufio"
	"fmt"
	"os"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// Record is one exported log record with its resource attributes.
type Record struct {
	Resource   pcommon.Map
	Attributes pcommon.Map
	Body       string
	Time       time.Time // the record's timestamp, or its observed time
	Severity   string    // SeverityText
	// SeverityNumber is what the processor sets on a tagged record that has none.
	SeverityNumber plog.SeverityNumber
	EventName      string // xla.oom (a statement), xla.oom.failure (a failure record), …
}

// Str returns the string value of a record attribute, "" when absent.
func (r Record) Str(key string) string {
	if v, ok := r.Attributes.Get(key); ok {
		return v.AsString()
	}
	return ""
}

// Int returns the int value of a record attribute and whether it is present.
func (r Record) Int(key string) (int64, bool) {
	if v, ok := r.Attributes.Get(key); ok && v.Type() == pcommon.ValueTypeInt {
		return v.Int(), true
	}
	return 0, false
}

// Strings returns a slice attribute as strings.
func (r Record) Strings(key string) []string {
	v, ok := r.Attributes.Get(key)
	if !ok || v.Type() != pcommon.ValueTypeSlice {
		return nil
	}
	out := make([]string, 0, v.Slice().Len())
	for i := 0; i < v.Slice().Len(); i++ {
		out = append(out, v.Slice().At(i).AsString())
	}
	return out
}

// ResourceStr returns a resource attribute as a string, "" when absent.
func (r Record) ResourceStr(key string) string {
	if v, ok := r.Resource.Get(key); ok {
		return v.AsString()
	}
	return ""
}

// ReadFile reads every record of a file exporter's JSON-lines output. A
// missing file is no records.
func ReadFile(path string) ([]Record, error) {
	var out []Record
	var u plog.JSONUnmarshaler
	err := EachLine(path, func(n int, line []byte) error {
		ld, err := u.UnmarshalLogs(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, Flatten(ld)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachLine calls each with every non-empty line of a file exporter's
// JSON-lines output (one OTLP/JSON request of any signal per line; a line
// may be large) and its line number, and stops at the first error, which it
// returns. A missing file has no lines.
func EachLine(path string, each func(n int, line []byte) error) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := each(n, sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Flatten lists the records of ld in order.
func Flatten(ld plog.Logs) []Record {
	var out []Record
	for i := 0; i < ld.ResourceLogs().Len(); i++ {
		rl := ld.ResourceLogs().At(i)
		for j := 0; j < rl.ScopeLogs().Len(); j++ {
			lrs := rl.ScopeLogs().At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				lr := lrs.At(k)
				t := lr.Timestamp()
				if t == 0 {
					t = lr.ObservedTimestamp()
				}
				out = append(out, Record{
					Resource:       rl.Resource().Attributes(),
					Attributes:     lr.Attributes(),
					Body:           lr.Body().AsString(),
					Time:           t.AsTime(),
					Severity:       lr.SeverityText(),
					SeverityNumber: lr.SeverityNumber(),
					EventName:      lr.EventName(),
				})
			}
		}
	}
	return out
}

// FailureEvent is the event name of the record the xla_oom processor makes
// of a whole failure: not a line of any input.
const FailureEvent = "xla.oom.failure"

// Split separates the records read from inputs (lines, in order) from the
// failure records the processor made.
func Split(recs []Record) (lines, failures []Record) {
	for _, r := range recs {
		if r.EventName == FailureEvent {
			failures = append(failures, r)
		} else {
			lines = append(lines, r)
		}
	}
	return lines, failures
}
