// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

//go:build unix

package run

import (
	"os"
	"syscall"
)

// forwarded are passed on to the job: runtimes and Slurm stop the entrypoint with them, and as PID 1 the wrapper
// would ignore them. The first four also end the retries.
var (
	forwarded   = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}
	terminating = map[os.Signal]bool{syscall.SIGTERM: true, syscall.SIGINT: true, syscall.SIGHUP: true, syscall.SIGQUIT: true}
)

// exitStatus is a finished job's status as a shell reports it: its exit code, or 128 + the killing signal.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
