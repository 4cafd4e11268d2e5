// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomrecord

import (
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// FindWarning reads the record's sources in order and returns the first
// memory-pressure warning found. Ask it only after Find found no OOM: a text
// that holds a failure is the failure, whatever warnings precede it.
func (f *Finder) FindWarning(lr plog.LogRecord) (w oom.Warning, found bool) {
	f.candidates(lr, func(text string) bool {
		w, found = oom.RecognizeWarning(text)
		return !found
	})
	return w, found
}
