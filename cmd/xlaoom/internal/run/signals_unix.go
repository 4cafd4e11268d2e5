// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

//go:build unix

package run

import (
	"os"
	"syscall"
)

// forwarded are the signals passed on to the job: a container runtime or
// Slurm stops the entrypoint with them, and the job must see them (as PID 1
// the wrapper would otherwise ignore them). The first four also end the
// retries: no run starts after them.
var (
	forwarded   = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}
	terminating = map[os.Signal]bool{syscall.SIGTERM: true, syscall.SIGINT: true, syscall.SIGHUP: true, syscall.SIGQUIT: true}
)

// exitStatus is a finished job's status as a shell reports it: its exit
// code, or 128 + the signal that killed it.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
