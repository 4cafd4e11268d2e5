// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package failure assembles XLA OOM failures: the one definition of which
// records state one failure, used by the processor, the connector's input
// and xlaoom explain alike.
//
// One failure is many records of one stream (one process's output: a
// resource and the file or container it came from): the driver's refusals
// before it (allocation attempts), the allocator's line, its dump, summary
// and Stats, the status the runtime logs, the exception the program raised
// and its traceback. The Assembler reads each stream in order:
//
//   - allocation attempts (the driver's refusals) are counted for the
//     stream: every failure after them is given them, as a pool that backed
//     off at start-up stays smaller for the process's life;
//   - a failure statement opens a failure, or joins the open one when it is
//     dated less than the window after the failure's last statement (or
//     either is undated);
//   - every record of a stream with an open failure is read for evidence
//     (Stats, the allocator's summary, chunk annotations, traceback frames);
//   - a failure closes at the record that holds the raised status (the
//     exception line or its traceback), when the next failure of the stream
//     opens, after the quiet interval of wall-clock time with no record from
//     the stream, at the bound on records, at eviction, or when the caller
//     flushes (shutdown, the end of explain's input).
//
// A closed Failure holds every fact its records stated, merged, and its
// verdict decided on all of them (oom.Decide). State is bounded: a failure
// keeps a fixed amount whatever it prints, and the streams are bounded in
// number (the one used longest ago is evicted, its open failure closed).
package failure // import "github.com/xlaoom/xlaoomprocessor/internal/failure"
