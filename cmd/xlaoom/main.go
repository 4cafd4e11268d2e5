// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command xlaoom explains XLA out-of-memory failures found in logs, without
// a collector: `xlaoom explain [--json] [FILE...]`, and runs a job so that a
// restart policy can act on its failure: `xlaoom run [flags] -- COMMAND`.
// See `xlaoom explain -h` and `xlaoom run -h`.
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
