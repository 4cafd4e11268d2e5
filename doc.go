// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package xlaoomprocessor is an OpenTelemetry Collector logs processor of type
// xla_oom. It recognises XLA out-of-memory failures (TPU, GPU, CPU) in log
// records, parses every size in them to bytes and tags each such record with
// the XLA error code, category, phase, cause and remediation attributes. Every
// other record passes through untouched, and no record is ever dropped.
package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"
