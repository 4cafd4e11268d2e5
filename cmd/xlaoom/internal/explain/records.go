// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unsafe"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Record is one log record as the agent (examples/agent.yaml) hands it to
// the processor: a line matching oom.LineStart and the lines after it that do
// not, joined with "\n", surrounding whitespace trimmed as file_log trims it.
type Record struct {
	// Text is the record's text; nil when Over. It is only valid during the
	// callback that receives it: the buffer is reused.
	Text []byte
	Line int  // line number of the record's first line, from 1
	Size int  // bytes of the joined lines before trimming
	Over bool // Size is over the cap: the text was not kept, so it is not read
}

// splitter groups lines into records in memory bounded by its cap: a record
// longer than the cap is counted, not kept.
type splitter struct {
	max    int
	buf    []byte
	rec    Record
	open   bool // a record has begun
	line   int  // physical lines begun so far
	inLine bool // the last chunk ended inside a physical line (longer than the reader's buffer)
	joined bool // the last physical line was a CRI partial line: the next one continues it
}

// splitRecords reads r to its end and calls emit with every record, in
// order. Records are capped at max bytes. A read error ends the split after
// the records read so far were emitted.
func splitRecords(r *bufio.Reader, max int, emit func(*Record)) error {
	s := splitter{max: max}
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			s.add(chunk, emit)
		}
		switch {
		case err == nil || errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			s.flush(emit)
			return nil
		default:
			s.flush(emit)
			return err
		}
	}
}

// add takes the next chunk of input: a whole line, or a piece of a line
// longer than the reader's buffer. Whether a line starts a record is read
// from its first piece, which is a whole buffer (64 KiB) long: far more than
// any log header.
func (s *splitter) add(chunk []byte, emit func(*Record)) {
	ends := chunk[len(chunk)-1] == '\n'
	if ends {
		chunk = chunk[:len(chunk)-1]
	}
	if s.inLine { // the rest of a long line
		s.append(chunk)
		s.inLine = !ends
		return
	}
	s.line++
	// Kubernetes container files prefix every line with the runtime's
	// time, stream and tag; the agent's container parser strips it first
	// and joins partial (P) lines, so grouping sees the logged line.
	n, partial := logheader.CRIPrefix(unsafe.String(unsafe.SliceData(chunk), len(chunk)))
	chunk = chunk[n:]
	switch {
	case s.joined:
		// continues a CRI partial line: neither a new record nor a new line
	case !s.open || oom.StartsRecord(unsafe.String(unsafe.SliceData(chunk), len(chunk))):
		s.flush(emit)
		s.open, s.rec = true, Record{Line: s.line}
		s.buf = s.buf[:0]
	default:
		s.append(newline)
	}
	s.append(chunk)
	s.inLine, s.joined = !ends, partial
}

var newline = []byte{'\n'}

// append adds b to the open record, or only counts it once the record is
// over the cap.
func (s *splitter) append(b []byte) {
	s.rec.Size += len(b)
	if s.rec.Over {
		return
	}
	if s.rec.Size > s.max {
		s.rec.Over, s.buf = true, s.buf[:0]
		return
	}
	s.buf = append(s.buf, b...)
}

// flush emits the open record. A record of whitespace only is none, as in
// file_log.
func (s *splitter) flush(emit func(*Record)) {
	if !s.open {
		return
	}
	s.open = false
	if !s.rec.Over {
		s.rec.Text = bytes.TrimSpace(s.buf)
		if len(s.rec.Text) == 0 {
			return
		}
	}
	emit(&s.rec)
}
