// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// warn tags a record that holds no OOM but a memory-pressure warning
// (rematerialization shortfall, allocator retry, start-up back-off, autotuner
// fallback, cuDNN memory figures). It writes xla.memory.warning and its own
// attributes, never xla.error.code, so nothing that counts failures counts it.
// A record already carrying xla.memory.warning is left as it is. The
// allocation attempts it tags are given to its stream's next failure.
func (p *logsProcessor) warn(rl plog.ResourceLogs, lr plog.LogRecord, w *oom.Warning, text string, b *batch) (string, tagging) {
	if oomattr.Warned(lr.Attributes()) {
		return "", untouched
	}
	oomattr.PutWarning(*w, lr.Attributes())
	nameEvent(lr, oomattr.EventWarning)
	if w.Kind == oom.WarningAllocationAttempt {
		p.attempted(rl, lr, w.Attempts, b)
	}
	if p.openHere(rl, b) {
		p.evidence(rl, lr, text, b)
	}
	p.setSeverity(lr, plog.SeverityNumberWarn, "WARN")
	return w.Kind, taggedWarning
}
