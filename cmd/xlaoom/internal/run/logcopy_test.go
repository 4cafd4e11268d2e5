// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// Two streams written in pieces: the copy holds each stream's lines whole,
// in the order they were completed, and both streams pass through as written.
func TestLogCopyMergesWholeLines(t *testing.T) {
	c := newLogCopy(1 << 20)
	var out, errOut bytes.Buffer
	o := &streamTee{out: &out, copy: c}
	e := &streamTee{out: &errOut, copy: c}
	for _, w := range []struct {
		tee  *streamTee
		text string
	}{
		{o, "step 1 lo"}, {e, "E1127 12:00:00.0 x.cc:1] RESOURCE_"}, {o, "ss 0.5\nstep 2"},
		{e, "EXHAUSTED: Out of memory\nTraceback\n"}, {o, " loss 0.4\n"}, {e, "tail without newline"},
	} {
		if n, err := w.tee.Write([]byte(w.text)); n != len(w.text) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	o.flush()
	e.flush()
	want := "step 1 loss 0.5\nE1127 12:00:00.0 x.cc:1] RESOURCE_EXHAUSTED: Out of memory\nTraceback\nstep 2 loss 0.4\ntail without newline\n"
	if got := string(c.log()); got != want {
		t.Errorf("copy:\n%s\nwant:\n%s", got, want)
	}
	if out.String() != "step 1 loss 0.5\nstep 2 loss 0.4\n" || errOut.String() != "E1127 12:00:00.0 x.cc:1] RESOURCE_EXHAUSTED: Out of memory\nTraceback\ntail without newline" {
		t.Errorf("passed through: %q %q", out.String(), errOut.String())
	}
}

// A long log keeps its end only, from a whole line.
func TestLogCopyKeepsTheEnd(t *testing.T) {
	const keep = 1000
	c := newLogCopy(keep)
	tee := &streamTee{out: &bytes.Buffer{}, copy: c}
	for i := range 10000 {
		_, _ = tee.Write([]byte(strings.Repeat("x", i%50) + " line\n"))
		if len(c.buf) > 2*keep+maxPending {
			t.Fatalf("the copy holds %d bytes, keep is %d", len(c.buf), keep)
		}
	}
	_, _ = tee.Write([]byte("the last line\n"))
	got := c.log()
	if len(got) > keep || !strings.HasSuffix(string(got), "\nthe last line\n") || !strings.HasSuffix(strings.SplitN(string(got), "\n", 2)[0], " line") {
		t.Errorf("kept %d bytes, want at most %d from a whole line to the last: %q…", len(got), keep, got[:min(80, len(got))])
	}
	// A line longer than the copy itself keeps its end.
	c.reset()
	_, _ = tee.Write([]byte(strings.Repeat("y", 3*keep) + "\n"))
	if got := c.log(); len(got) > keep {
		t.Errorf("kept %d bytes of a long line, want at most %d", len(got), keep)
	}
}

// lockedBuffer is a bytes.Buffer safe for the writers of one test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
