// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// The retry verdict's rule "driver refused before the failure" reads the
// allocations the GPU driver refused before a failure. A pool's back-off
// beside another process is logged at start-up, records before the failure,
// so the processor remembers per job (incident_resource_attributes, as in
// xla.oom.incident.id) the allocation attempts it tagged, and gives them to
// the job's next failure records (internal/attemptmemory says which, as
// xlaoom explain counts them). A resource that names no job keeps nothing.

// rememberAttempts remembers the n allocation attempts (at least one) of a
// warning record of the job res names.
func (p *logsProcessor) rememberAttempts(res pcommon.Map, n int) {
	if key, ok := incident.JobKey(res, p.cfg.IncidentResourceAttributes); ok {
		p.attempts.Attempted(key, max(n, 1), p.now())
	}
}

// decideRetry sets report's verdict from its record and the attempts its
// job logged before it. A verdict the record already carries (from its
// sender) is kept: report's is then not written.
func (p *logsProcessor) decideRetry(res pcommon.Map, lr plog.LogRecord, report *oom.Report, ts pcommon.Timestamp, now time.Time) {
	refused := 0
	if key, ok := incident.JobKey(res, p.cfg.IncidentResourceAttributes); ok {
		refused = p.attempts.Failed(key, ts.AsTime(), now)
	}
	if _, sent := lr.Attributes().Get(oomattr.Retry); sent {
		report.Retry = ""
		return
	}
	if refused > 0 {
		// A copy, made only here: report itself would escape to the heap
		// through oom.RetryVerdict, on every failure.
		r := *report
		report.Retry = oom.RetryVerdict(&r, refused)
	}
}
