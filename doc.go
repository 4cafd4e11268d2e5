// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package xlaoomprocessor is the OpenTelemetry Collector logs processor xla_oom: it tags the log records of XLA
// out-of-memory failures with the error code, sizes in bytes, cause and remediation; every other record passes
// through untouched, and no record is ever dropped.
package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"
