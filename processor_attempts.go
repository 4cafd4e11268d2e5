// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/attemptmemory"
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
//
// The records of one failure (the allocator's line with the sizes, then the
// exception the program raised) carry one verdict: the first futile or
// may_help the processor gives a failure's record is written on its later
// records too, in place of theirs, as xlaoom explain gives a finding the
// verdict of its first record that has one. The first record has already
// left when a later one comes, so the first verdict is the one that all can
// share. The record that holds the exception the program raised is the last
// one of its failure: the next failure record decides anew.

// rememberAttempts remembers the n allocation attempts (at least one) of a
// warning record of the job res names.
func (p *logsProcessor) rememberAttempts(res pcommon.Map, n int) {
	if key, ok := incident.JobKey(res, p.cfg.IncidentResourceAttributes); ok {
		p.attempts.Attempted(key, max(n, 1), p.now())
	}
}

// decideRetry sets report's verdict from its record, the attempts its job
// logged before it and the verdict an earlier record of the same failure
// was given. A verdict the record already carries (from its sender) is
// kept: report's is then not written, nor handed to later records.
func (p *logsProcessor) decideRetry(res pcommon.Map, lr plog.LogRecord, report *oom.Report, ts pcommon.Timestamp, now time.Time) {
	var given attemptmemory.Failure
	key, named := incident.JobKey(res, p.cfg.IncidentResourceAttributes)
	if named {
		given = p.attempts.Failed(key, ts.AsTime(), now, report.ExceptionType != "")
	}
	if _, sent := lr.Attributes().Get(oomattr.Retry); sent {
		report.Retry = ""
		return
	}
	if !named {
		return // no job: the record's own verdict, as Recognize read it
	}
	report.Retry = p.attempts.Settle(key, given, report.Retry, func(refused int) string {
		// A copy, made only here: report itself would escape to the heap
		// through oom.RetryVerdict, on every failure.
		r := *report
		return oom.RetryVerdict(&r, refused)
	})
}
