// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

//go:generate make -C .. generate

// Package xlaoomconnector is the xla_oom logs-to-metrics connector: it turns XLA out-of-memory log records into error
// counts, size histograms and a memory-pressure gauge, keeping the resource of each record.
package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"
