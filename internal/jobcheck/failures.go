// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package jobcheck

import (
	"fmt"
	"slices"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// checkFailures checks the failure records (event xla.oom.failure) the
// processor made of a job: one per failure (the job is one stream), none for
// a job that ran on; each states the failing request, the holder and the
// site the manifest names, and a verdict that follows the job: may_help
// where memory was held elsewhere, futile where a restart repeats it, and
// xlaoom explain's. Every statement names a failure that has its record.
func checkFailures(p *problems, r *Result, job Job, failures []Record, obs Observed) {
	r.FailureRecords = len(failures)
	want := 0
	if job.Failed {
		want = 1
	}
	if len(failures) != want {
		p.add(fmt.Sprintf("%d failure records (xla.oom.failure), want %d", len(failures), want), "")
	}
	ids := map[string]bool{}
	for _, f := range failures {
		ids[f.FailureID] = true
		if !slices.Contains(r.FailureRetries, f.Retry) {
			r.FailureRetries = append(r.FailureRetries, f.Retry)
		}
		if !job.Failed {
			continue
		}
		if job.FailingRequest > 0 && (!f.HasRequested || !sameSize(f.Requested, job.FailingRequest)) {
			p.add(fmt.Sprintf("the failure record does not state the failing request, %d bytes", job.FailingRequest), firstLine(f.Body))
		}
		if f.Holder != job.Holder {
			p.add(fmt.Sprintf("the failure record names holder %q, the manifest %q", f.Holder, job.Holder), firstLine(f.Body))
		}
		if f.Site != job.Site {
			p.add(fmt.Sprintf("the failure record's site is %+v, the manifest's %+v", f.Site, job.Site), firstLine(f.Body))
		}
		switch {
		case job.HeldElsewhere && f.Retry != oom.RetryMayHelp:
			p.add("memory was held outside the program, but the failure record's verdict is "+f.Retry, firstLine(f.Body))
		case job.Repeats && f.Retry != oom.RetryFutile:
			p.add("a restart repeats the failure, but the failure record's verdict is "+f.Retry, firstLine(f.Body))
		case obs.ExplainRetry != "" && f.Retry != obs.ExplainRetry:
			p.add(fmt.Sprintf("the failure record's verdict is %s, xlaoom explain's %s", f.Retry, obs.ExplainRetry), firstLine(f.Body))
		}
		if f.IncidentID == "" {
			p.add("the failure record has no xla.oom.incident.id", firstLine(f.Body))
		}
	}
	for _, rec := range obs.Records {
		// A job that ran on may have caught an OOM: a failure that went on
		// has statements and no record.
		if job.Failed && rec.ErrorCode != "" && rec.FailureID != "" && !ids[rec.FailureID] {
			p.add("a statement names a failure that has no failure record", firstLine(rec.Body))
		}
	}
}
