// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command xlaoom explains the XLA OOM failures of logs without a collector (`xlaoom explain [--json] [FILE...]`)
// and runs a job for a restart policy (`xlaoom run [flags] -- COMMAND`); see their -h.
package main

import (
	"os"

	"github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/explain"
	"github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/run"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "run" {
		os.Exit(run.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(explain.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
