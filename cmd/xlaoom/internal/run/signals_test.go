// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

//go:build unix

package run

import (
	"bufio"
	"io"
	"os"
	"syscall"
	"testing"
)

// A SIGTERM to the wrapper (Kubernetes stopping the pod, Slurm cancelling
// the job) reaches the job, and no rerun follows it: the job's status is
// the wrapper's.
func TestTerminationIsForwardedNotRetried(t *testing.T) {
	t.Setenv("CAPTURE", capture("jobs", "platform_near_full_oom.log"))
	pr, pw := io.Pipe()
	ready := make(chan struct{})
	go func() {
		// The job says it runs, then the wrapper receives SIGTERM.
		r := bufio.NewReader(pr)
		if line, err := r.ReadString('\n'); err == nil && line == "ready\n" {
			close(ready)
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	var stderr lockedBuffer
	// Were it not stopped, a may_help failure would be rerun.
	status := Main([]string{"--retries=3", "--retry-delay=0", "--", "/bin/sh", "-c",
		`cat "$CAPTURE" >&2; echo ready; exec sleep 60`}, nil, pw, &stderr)
	_ = pw.Close()
	select {
	case <-ready:
	default:
		t.Fatalf("the job never said it runs; status %d\n%s", status, stderr.String())
	}
	if status != 128+int(syscall.SIGTERM) {
		t.Errorf("status %d, want %d (the job ended by the forwarded SIGTERM)\n%s", status, 128+int(syscall.SIGTERM), stderr.String())
	}
}
