// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"go.yaml.in/yaml/v3"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
)

// Totals count what the inputs held.
type Totals struct {
	Inputs     int   // inputs read, wholly or in part
	Bytes      int64 // bytes read from them (compressed bytes for a gzip file)
	Records    int64
	Over       int64  // records longer than the processor's max_scan_size: not read
	Failures   int64  // OOM failures (one per failure, however many records state it)
	Generic    int64  // of which no known message family
	Caught     int64  // OOMs a program caught and went on after: not failures
	Warnings   int64  // memory-pressure warnings (the attempts no failure followed are one)
	Attempts   int64  // allocation attempts: in warnings, or before a failure
	Unreadable int    // inputs that could not be read (missing, a directory, binary, a read error)
	LastRetry  string // the retry verdict of the last failure counted
	// HostKills are the host-memory kills found (hostkill.go), not failures.
	HostKills     int64
	LastHostRetry string
}

func (t *Totals) count(f *Finding) {
	t.Attempts += int64(f.Attempts.Count)
	switch {
	case f.Report == nil:
		t.Warnings++
	case f.WentOn():
		t.Caught++
	default:
		t.Failures++
		t.LastRetry = f.Retry
		if f.Generic() {
			t.Generic++
		}
	}
}

// readerSize bounds memory: a longer line is read in pieces; binarySniff is
// how much of an input is looked at for NUL bytes (as git and grep do).
const (
	readerSize  = 64 << 10
	binarySniff = 8000
)

// errBinary says an input is not text.
type errBinary struct{ offset int }

func (e errBinary) Error() string {
	return fmt.Sprintf("binary data (a NUL byte at offset %d), not a text log; skipped", e.offset)
}

// inputNotes are the remarks on one input that are not errors.
type inputNotes struct {
	records   int64
	invalidAt int  // line where invalid UTF-8 was first seen; 0: none seen
	empty     bool // no record
	host      hostScan
}

// scan reads one input, calls found with every finding and adds to t.
func scan(name string, r io.Reader, t *Totals, past []assembly.Past, found func(*Finding) error) (inputNotes, error) {
	var notes inputNotes
	counted := &countingReader{r: r}
	br := bufio.NewReaderSize(counted, readerSize)
	head, err := br.Peek(2)
	if len(head) == 0 {
		if err != nil && !errors.Is(err, io.EOF) {
			return notes, err
		}
		notes.empty = true
		t.Inputs++
		return notes, nil // nothing was read: 0 bytes
	}
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) { // a rotated log.gz
		gz, gzErr := gzip.NewReader(br)
		if gzErr != nil {
			return notes, fmt.Errorf("gzip: %w", gzErr)
		}
		defer func() { _ = gz.Close() }() // Close only releases the decompressor
		br = bufio.NewReaderSize(gzipErrors{gz}, readerSize)
	}
	head, err = br.Peek(binarySniff)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return notes, err
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return notes, errBinary{offset: i}
	}
	// Invalid UTF-8 is looked for here and in the records it changes, candidates.
	if i := invalidUTF8(head, len(head) < binarySniff); i >= 0 {
		notes.invalidAt = 1 + bytes.Count(head[:i], []byte{'\n'})
	}
	t.Inputs++
	defer func() { t.Bytes += counted.n }()
	g := newGatherer(func(f *Finding) error {
		t.count(f)
		return found(f)
	})
	g.stage.Assembler.Remember(job, past, time.Time{})
	notes.host.text.YAML = yaml.Unmarshal // kubectl get -o yaml (hostkill.go)
	var ferr error
	err = splitLines(br, maxScanSize, func(rec *Record) {
		if ferr == nil {
			ferr = notes.record(rec, name, t, g)
		}
	}, notes.host.line)
	notes.host.end(g)
	if ferr == nil {
		ferr = g.flush() // what a read error left open is written too
	}
	if ferr != nil {
		return notes, ferr
	}
	notes.empty = notes.records == 0 && err == nil
	return notes, err
}

// record recognises one record and passes on what it holds.
func (notes *inputNotes) record(rec *Record, name string, t *Totals, g *gatherer) error {
	t.Records++
	notes.records++
	if rec.Over {
		t.Over++
		return nil
	}
	// The prefilter reads the buffer in place: 99.9 % of records cost that.
	if inPlace := unsafe.String(unsafe.SliceData(rec.Text), len(rec.Text)); !hostoom.Recognizer().MayContain(inPlace) {
		notes.host.record(rec, g) // hostkill.go
		g.evidence(inPlace)
		return g.settle()
	}
	if notes.invalidAt == 0 && !utf8.Valid(rec.Text) {
		notes.invalidAt = rec.Line
	}
	// As the agent's decoder does; the copy is the finding's own.
	return g.record(name, rec.Line, strings.ToValidUTF8(string(rec.Text), "\uFFFD"))
}

// invalidUTF8 returns the offset of b's first invalid UTF-8 byte, or -1; a
// rune cut at the end of an incomplete b is not counted.
func invalidUTF8(b []byte, complete bool) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			if !complete && !utf8.FullRune(b[i:]) {
				return -1
			}
			return i
		}
		i += n
	}
	return -1
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// gzipErrors says that a read error comes from the archive.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("gzip: %w", err)
	}
	return n, err
}

// LastFailure returns a log's last OOM failure, or nil: `xlaoom run` decides on it, with the job's failures
// of earlier attempts (past) that the repeat rule reads.
func LastFailure(name string, r io.Reader, past []assembly.Past) (*Finding, error) {
	var (
		t    Totals
		last *Finding
	)
	_, err := scan(name, r, &t, past, func(f *Finding) error {
		if f.Report != nil {
			last = f
		}
		return nil
	})
	return last, err
}
