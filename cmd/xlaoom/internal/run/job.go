// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"time"
)

// outputGrace is how long the wrapper reads the output of processes the job left running after it exited.
const outputGrace = 5 * time.Second

// signals passes the signals the wrapper receives on to the running job and remembers a terminating one.
type signals struct {
	ch   chan os.Signal
	mu   sync.Mutex
	job  *os.Process
	stop chan struct{} // closed at the first terminating signal
	sig  os.Signal     // that signal
	done chan struct{}
}

func watchSignals() *signals {
	s := &signals{ch: make(chan os.Signal, 8), stop: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(s.ch, forwarded...)
	go s.loop()
	return s
}

func (s *signals) loop() {
	defer close(s.done)
	for sig := range s.ch {
		s.mu.Lock()
		if s.job != nil {
			_ = s.job.Signal(sig) // it may have exited already
		}
		if terminating[sig] && s.sig == nil {
			s.sig = sig
			close(s.stop)
		}
		s.mu.Unlock()
	}
}

// stopped returns the terminating signal received, or nil.
func (s *signals) stopped() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sig
}

func (s *signals) close() {
	signal.Stop(s.ch)
	close(s.ch)
	<-s.done
}

// runJob runs the command once with env, its output passed through and copied into log, and returns its exit
// status; an error is a command that could not start, its status the shell's.
func runJob(command, env []string, stdin io.Reader, stdout, stderr io.Writer, log *logCopy, sigs *signals) (int, error) {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = env
	cmd.Stdin = stdin
	outTee := &streamTee{out: stdout, copy: log}
	errTee := &streamTee{out: stderr, copy: log}
	cmd.Stdout, cmd.Stderr = outTee, errTee
	// Processes left behind holding the output open do not keep the wrapper waiting past this.
	cmd.WaitDelay = outputGrace
	// Registered before the start, so a signal arriving during it waits in the channel until the job is set.
	sigs.mu.Lock()
	err := cmd.Start()
	if err == nil {
		sigs.job = cmd.Process
	}
	sigs.mu.Unlock()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return ExitNotFound, err
		}
		return ExitCannotRun, err
	}
	err = cmd.Wait()
	sigs.mu.Lock()
	sigs.job = nil
	sigs.mu.Unlock()
	outTee.flush()
	errTee.flush()
	// A job that ran counts by its status, even when its output could not be copied.
	if err != nil && cmd.ProcessState == nil {
		return ExitCannotRun, err
	}
	return exitStatus(cmd.ProcessState), nil
}

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
