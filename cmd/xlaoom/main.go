// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command xlaoom explains XLA out-of-memory failures found in logs, without
// a collector: `xlaoom explain [--json] [FILE...]`. See `xlaoom explain -h`.
package main

import (
	"os"

	"github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/explain"
)

func main() {
	os.Exit(explain.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
