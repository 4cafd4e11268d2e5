// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package jobcheck

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

const retryAttr = oomattr.Retry

// checkRetry checks the retry verdict of a job's statements: each carries
// one of the three verdicts; a job that failed while memory was held outside
// its program (Job.HeldElsewhere) is may_help on every one; and the
// connector labels the job's incidents only with verdicts its records carry.
// The failure records' verdicts are checked in failures.go.
func checkRetry(p *problems, r *Result, job Job, obs Observed) {
	r.ExplainRetry = obs.ExplainRetry
	for _, rec := range obs.Records {
		if rec.ErrorCode == "" {
			if rec.Retry != "" {
				p.add("a record that is not a failure carries "+retryAttr+" "+rec.Retry, firstLine(rec.Body))
			}
			continue
		}
		if !slices.Contains(r.Retries, rec.Retry) {
			r.Retries = append(r.Retries, rec.Retry)
		}
		switch {
		case rec.Retry != oom.RetryFutile && rec.Retry != oom.RetryMayHelp && rec.Retry != oom.RetryUnknown:
			p.add(fmt.Sprintf("a failure record's %s is %q, not a verdict", retryAttr, rec.Retry), firstLine(rec.Body))
		case job.HeldElsewhere && job.Failed && rec.Retry != oom.RetryMayHelp:
			p.add(fmt.Sprintf("the job failed while memory was held outside its program, but a failure record's %s is %s, not %s",
				retryAttr, rec.Retry, oom.RetryMayHelp), firstLine(rec.Body))
		}
	}
	for label, n := range obs.IncidentsByRetry {
		if !slices.Contains(r.Retries, label) && !slices.Contains(r.FailureRetries, label) {
			p.add(fmt.Sprintf("the connector counts %d incidents with %s=%q, which no failure record carries (%s)",
				n, retryAttr, label, strings.Join(r.Retries, ", ")), "")
		}
	}
	if job.HeldElsewhere && job.Failed && obs.IncidentsByRetry[oom.RetryMayHelp] != obs.Incidents {
		p.add(fmt.Sprintf("the job failed while memory was held outside its program, but the connector labels %d of its %d incidents %s",
			obs.IncidentsByRetry[oom.RetryMayHelp], obs.Incidents, oom.RetryMayHelp), "")
	}
}

// retryColumn is the table's verdicts: the failure records', then explain's.
func retryColumn(r *Result) string {
	if len(r.Retries) == 0 && r.ExplainRetry == "" {
		return "-"
	}
	got := slices.Clone(r.Retries)
	sort.Strings(got)
	s := strings.Join(got, ",")
	if s == "" {
		s = "-"
	}
	if r.ExplainRetry != "" {
		s += " (" + r.ExplainRetry + ")"
	}
	return s
}
