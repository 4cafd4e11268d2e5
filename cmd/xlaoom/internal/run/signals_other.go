// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package run

import "os"

// forwarded and terminating: see signals_unix.go.
var (
	forwarded   = []os.Signal{os.Interrupt}
	terminating = map[os.Signal]bool{os.Interrupt: true}
)

func exitStatus(ps *os.ProcessState) int { return ps.ExitCode() }
