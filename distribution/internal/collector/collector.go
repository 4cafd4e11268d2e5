// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package collector starts otelcol-xlaoom as a subprocess and stops it, for the
// demo and the end-to-end tests. Everything it opens listens on 127.0.0.1.
package collector

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Process is a running collector (or another server the tests start).
type Process struct {
	cmd    *exec.Cmd
	done   chan struct{}
	err    error
	killed bool   // ended by Kill: its exit status is expected, not an error
	Log    string // path of the file holding its stdout and stderr
}

// Start runs binary with --config config and the extra environment env
// ("KEY=value"), logging to logPath.
func Start(binary, config, logPath string, env ...string) (*Process, error) {
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("collector binary: %w (build it with `make -C distribution build-dist`)", err)
	}
	return StartCommand(binary, []string{"--config", config}, logPath, env...)
}

// StartCommand runs binary with args and the extra environment env, logging
// to logPath.
func StartCommand(binary string, args []string, logPath string, env ...string) (*Process, error) {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{}), Log: logPath}
	go func() {
		p.err = cmd.Wait()
		lf.Close()
		close(p.done)
	}()
	return p, nil
}

// Exited reports whether the process has ended, and its error.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Kill ends the collector at once (SIGKILL: nothing is flushed, as when a node
// or container dies) and waits for it to be gone.
func (p *Process) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.killed = true
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Stop asks the collector to shut down (SIGTERM: it flushes its exporters)
// and kills it if it has not ended within grace.
func (p *Process) Stop(grace time.Duration) error {
	select {
	case <-p.done:
		if p.killed {
			return nil
		}
		return p.err
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		var ee *exec.ExitError
		if errors.As(p.err, &ee) && ee.ExitCode() == -1 {
			return nil // ended by the signal itself
		}
		return p.err
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("collector did not stop within %s; killed", grace)
	}
}

// Tail returns the last n bytes of the collector's log, for error messages.
func (p *Process) Tail(n int) string {
	b, _ := os.ReadFile(p.Log)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// WaitListening waits until the process itself listens on addr (another
// process on that port does not count, where /proc tells them apart), and
// fails at once if it exits first.
func (p *Process) WaitListening(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if done, err := p.Exited(); done {
			return fmt.Errorf("process exited before listening on %s (%v)", addr, err)
		}
		if mine, known := listenedBy(p.cmd.Process.Pid, addr); known {
			if mine {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		} else if err := WaitListening(addr, 200*time.Millisecond); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s", addr, timeout)
		}
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Addr is 127.0.0.1:port.
func Addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// WaitListening waits until something accepts connections on addr.
func WaitListening(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s: %w", addr, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitStable waits until the size of path is non-zero and has not changed for
// quiet, and returns the size. It gives up after timeout.
func WaitStable(path string, quiet, timeout time.Duration) (int64, error) {
	deadline := time.Now().Add(timeout)
	var last int64 = -1
	since := time.Now()
	for {
		var size int64
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		}
		if size != last {
			last, since = size, time.Now()
		} else if size > 0 && time.Since(since) >= quiet {
			return size, nil
		}
		if time.Now().After(deadline) {
			return size, fmt.Errorf("%s did not settle within %s (size %d)", path, timeout, size)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
