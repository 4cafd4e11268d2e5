// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
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
