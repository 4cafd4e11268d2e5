// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package recordtime dates a log record the same way in the processor and the
// connector, so both put one record into the same incident window.
package recordtime // import "github.com/xlaoom/xlaoomprocessor/internal/recordtime"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// Of is when the record happened: its Timestamp, else its ObservedTimestamp,
// else now (never 1970: all such records would share one incident window).
func Of(lr plog.LogRecord, now time.Time) pcommon.Timestamp {
	if t := lr.Timestamp(); t != 0 {
		return t
	}
	if t := lr.ObservedTimestamp(); t != 0 {
		return t
	}
	return pcommon.NewTimestampFromTime(now)
}
