// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"io"
	"sync"
)

// logCopy keeps the last keep bytes of a job's log, stdout and stderr merged line by line as `2>&1` writes them
// (a line of one stream never cut by the other): an OOM's messages are at the end of the log.
type logCopy struct {
	mu   sync.Mutex
	keep int
	buf  []byte
	cut  bool // bytes before buf were dropped
}

func newLogCopy(keep int) *logCopy { return &logCopy{keep: keep} }

// append adds whole lines (or a piece of a line too long to hold back).
func (c *logCopy) append(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(p) >= c.keep {
		c.buf = append(c.buf[:0], p[len(p)-c.keep:]...)
		c.cut = true
		return
	}
	c.buf = append(c.buf, p...)
	if len(c.buf) > 2*c.keep { // drop the front at most once per keep bytes
		n := copy(c.buf, c.buf[len(c.buf)-c.keep:])
		c.buf = c.buf[:n]
		c.cut = true
	}
}

// log returns the bytes held, from the first whole line, once every writer is done.
func (c *logCopy) log() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.buf
	if len(b) > c.keep {
		b, c.cut = b[len(b)-c.keep:], true
	}
	if c.cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b
}

// reset forgets the log of a run, before the next one.
func (c *logCopy) reset() {
	c.mu.Lock()
	c.buf, c.cut = c.buf[:0], false
	c.mu.Unlock()
}

// maxPending bounds the unfinished line one stream holds back from the copy.
const maxPending = 64 << 10

// streamTee passes one stream through to out at once and adds its complete lines to the copy.
type streamTee struct {
	out     io.Writer
	copy    *logCopy
	pending []byte // the stream's unfinished last line
	err     error  // the first failure to pass the output on
}

func (t *streamTee) Write(p []byte) (int, error) {
	// A write error is remembered, not returned: returning it would leave the job blocked on a full pipe.
	if _, err := t.out.Write(p); err != nil && t.err == nil {
		t.err = err
	}
	n := len(p)
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		if len(t.pending) > 0 {
			t.pending = append(t.pending, p[:i+1]...)
			t.copy.append(t.pending)
			t.pending = t.pending[:0]
		} else {
			t.copy.append(p[:i+1])
		}
		p = p[i+1:]
	}
	t.pending = append(t.pending, p...)
	if len(t.pending) > maxPending {
		t.copy.append(t.pending)
		t.pending = t.pending[:0]
	}
	return n, nil
}

// flush adds the unfinished last line, when the stream has ended.
func (t *streamTee) flush() {
	if len(t.pending) > 0 {
		t.copy.append(append(t.pending, '\n'))
		t.pending = t.pending[:0]
	}
}
