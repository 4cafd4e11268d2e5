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

// Record is one log record as the agent (examples/agent.yaml) makes it: a
// line matching oom.LineStart and the lines after it that do not, trimmed.
type Record struct {
	// Text is nil when Over, and valid only during the callback: it is reused.
	Text []byte
	Line int  // line number of the record's first line, from 1
	Size int  // bytes of the joined lines before trimming
	Over bool // Size is over the cap: the text was not kept, so it is not read
}

// splitter groups lines into records; one longer than max is counted, not kept.
type splitter struct {
	max      int
	buf      []byte
	rec      Record
	open     bool                     // a record has begun
	line     int                      // physical lines begun so far
	inLine   bool                     // the last chunk ended inside a physical line (longer than the reader's buffer)
	joined   bool                     // the last physical line was a CRI partial line: the next one continues it
	stamped  int8                     // 1: the first line has kubectl logs --timestamps' prefix, so all do; -1: not
	eachLine func(n int, text []byte) // when set, sees every physical line (its first piece), prefix off
}

// splitRecords calls emit with every record of r, capped at max bytes; a read
// error ends it after the records read so far.
func splitRecords(r *bufio.Reader, max int, emit func(*Record)) error {
	return splitLines(r, max, emit, nil)
}

// splitLines is splitRecords that also calls eachLine, when set, with every physical line.
func splitLines(r *bufio.Reader, max int, emit func(*Record), eachLine func(n int, text []byte)) error {
	s := splitter{max: max, eachLine: eachLine}
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

// add takes a whole line or a piece of a long one; whether it starts a
// record is read from its first piece, 64 KiB: more than any header.
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
	// The agent's container parser strips the CRI prefix and joins partial lines.
	n, partial := logheader.CRIPrefix(unsafe.String(unsafe.SliceData(chunk), len(chunk)))
	if n == 0 && s.stamped >= 0 && !s.joined {
		n = logheader.TimestampPrefix(unsafe.String(unsafe.SliceData(chunk), len(chunk)))
		switch {
		case s.stamped != 0:
		case n > 0:
			s.stamped = 1
		default:
			s.stamped = -1
		}
	}
	chunk = chunk[n:]
	if s.eachLine != nil && !s.joined {
		s.eachLine(s.line, chunk)
	}
	switch {
	case s.joined:
		// continues a CRI partial line: neither a new record nor a new line
	case !s.open || startsRecord(unsafe.String(unsafe.SliceData(chunk), len(chunk))):
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

// startsRecord: a line starts a record as the agent's rule says, or is a
// kernel log's own line (dmesg, journalctl -k, syslog), which no agent rule
// joins: so a saved kernel log is one record per line, not one over the cap.
func startsRecord(line string) bool {
	return oom.StartsRecord(line) || logheader.StartsKernelLine(line)
}

// append adds b to the open record, or only counts it once over the cap.
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

// flush emits the open record; whitespace only is none, as in file_log.
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
