// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package failure assembles XLA OOM failures: which records of one stream
// (one process's output) state one failure. Attempts before it are counted
// for the stream; a statement opens a failure or joins the open one (within
// the window); the stream's other records are read for evidence; it closes
// at the raised status, the next failure, the quiet interval, a bound,
// eviction or a flush, and oom.Decide gives it its verdict. A failure keeps
// a fixed amount whatever it prints, and the streams are bounded.
package failure // import "github.com/xlaoom/xlaoomprocessor/internal/failure"
