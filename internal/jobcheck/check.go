// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package jobcheck

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// The names the callers read off a record: the warning kind of a record that
// holds allocation attempts only, and the count of attempt lines in a record.
const (
	AttemptWarning = oom.WarningAllocationAttempt
	AttemptsAttr   = oomattr.Attempts
)

// Record is what a run made of one log record of a job, or the failure
// record (event xla.oom.failure) the processor made of one of its failures.
type Record struct {
	Body         string
	Event        string // the record's event name
	FailureID    string // xla.oom.failure.id
	Holder       string // xla.oom.holder.program
	Site         Site   // code.*
	ErrorCode    string // xla.error.code: set on a failure, and only there
	WarningKind  string // xla.memory.warning
	Requested    int64  // xla.oom.requested.size, when HasRequested
	HasRequested bool
	Attempts     int64  // xla.oom.attempts (0 when absent)
	IncidentID   string // xla.oom.incident.id
	Retry        string // xla.oom.retry
}

// Observed is what a run produced for one job: its records (one per record
// the agent's grouping made of the log) and the connector's totals for it.
type Observed struct {
	Records []Record
	// Incidents is the connector's xla.oom.incidents for the job, all codes.
	Incidents int64
	// AttemptWarnings is the connector's xla.memory.warnings for the job with
	// the kind allocation_attempt.
	AttemptWarnings int64
	// IncidentsByRetry is Incidents by the series' xla.oom.retry label.
	IncidentsByRetry map[string]int64
	// ExplainRetry is the retry verdict xlaoom explain gives the job's
	// failure ("" where the run did not ask it, or it found none).
	ExplainRetry string
}

// Result is the outcome for one job.
type Result struct {
	Job Job
	// WantIncidents is 1 for a job that failed, 0 for one that did not.
	WantIncidents int
	Incidents     int64 // the connector's count
	IncidentIDs   int   // distinct xla.oom.incident.id among the failure records
	// Statements is the number of records tagged with xla.error.code (but
	// the failure records); FailureRecords the number of failure records.
	Statements, FailureRecords int
	// Requested are the distinct requested sizes the failure records state.
	Requested []int64
	// AttemptsInLog is the number of attempt lines of the log (Attempts).
	AttemptsInLog int
	// AttemptWarnings is the number of records tagged as allocation_attempt warnings.
	AttemptWarnings int
	// AttemptsInWarnings is the number of attempts those warnings hold.
	AttemptsInWarnings int64
	// AttemptsInFailures is the sum of xla.oom.attempts over the failure records.
	AttemptsInFailures int64
	// FailingRefusals are the refusals of the very request that failed (the
	// manifest's failing request) that a failure record holds as the failure
	// itself, not counted among its attempts.
	FailingRefusals int
	// AttemptWarningsMetric is the connector's allocation_attempt warning count.
	AttemptWarningsMetric int64
	// Retries are the distinct xla.oom.retry of the statements, in order;
	// ExplainRetry is explain's (Observed.ExplainRetry).
	Retries      []string
	ExplainRetry string
	// FailureRetries are the distinct xla.oom.retry of the failure records.
	FailureRetries []string
	// Problems are the expectations the job missed, one line each.
	Problems []string
}

// problems gathers failed expectations by kind, with a count and the first
// example, so that 80 records with the same fault make one line.
type problems struct {
	order []string
	n     map[string]int
	first map[string]string
}

func (p *problems) add(kind, example string) {
	if p.n == nil {
		p.n, p.first = map[string]int{}, map[string]string{}
	}
	if p.n[kind] == 0 {
		p.order = append(p.order, kind)
		p.first[kind] = example
	}
	p.n[kind]++
}

func (p *problems) lines() []string {
	out := make([]string, 0, len(p.order))
	for _, k := range p.order {
		line := k
		if p.n[k] > 1 {
			line = fmt.Sprintf("%s (%d records)", k, p.n[k])
		}
		if ex := p.first[k]; ex != "" {
			line += ", e.g. " + ex
		}
		out = append(out, line)
	}
	return out
}

// sameSize reports whether a stated size is the exact figure or its rounded
// human form (a size a message prints as "23.28GiB").
func sameSize(stated, exact int64) bool {
	return stated == exact || oom.HumanBytes(stated) == oom.HumanBytes(exact)
}

// firstLine is a record's first line, cut short, for a problem's example.
func firstLine(body string) string {
	line, _, _ := strings.Cut(body, "\n")
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	return fmt.Sprintf("%q", line)
}

// Check compares what a run produced for job (obs) with what the job did:
// its manifest entry and its whole log, log.
func Check(job Job, log string, obs Observed) Result {
	r := Result{Job: job, Incidents: obs.Incidents, AttemptWarningsMetric: obs.AttemptWarnings}
	var p problems

	// The whole log reached the pipeline; the failure records are checked
	// apart (failures.go).
	var statements, failures []Record
	for _, rec := range obs.Records {
		if rec.Event == oomattr.EventFailure {
			failures = append(failures, rec)
		} else {
			statements = append(statements, rec)
		}
	}
	obs.Records = statements
	checkFailures(&p, &r, job, failures, obs)
	bodyLines := 0
	for _, rec := range obs.Records {
		bodyLines += LinesIn(rec.Body)
	}
	if want := LinesIn(log); bodyLines != want {
		p.add(fmt.Sprintf("the records hold %d of the log's %d non-blank lines", bodyLines, want), "")
	}

	// One incident per failure.
	if job.Failed {
		r.WantIncidents = 1
	}
	if obs.Incidents != int64(r.WantIncidents) {
		p.add(fmt.Sprintf("xla.oom.incidents = %d, want %d", obs.Incidents, r.WantIncidents), "")
	}

	attempts := Attempts(log)
	r.AttemptsInLog = len(attempts)
	requested := map[int64]bool{}
	for _, rec := range obs.Records {
		inRecord := Attempts(rec.Body)
		if rec.ErrorCode != "" {
			r.Statements++
			r.AttemptsInFailures += rec.Attempts
			checkFailureSizes(&p, job, attempts, rec)
			if rec.HasRequested {
				requested[rec.Requested] = true
			}
			// The refusal of the very request that failed may be the failure
			// itself (a log-only failure) rather than an attempt on the way.
			own := 0
			for _, a := range inRecord {
				if job.FailingRequest > 0 && a.Bytes == job.FailingRequest {
					own++
				}
			}
			if n := int64(len(inRecord)); rec.Attempts > n || rec.Attempts < n-int64(own) {
				p.add("a failure record's "+AttemptsAttr+" is not the number of attempt lines it holds",
					fmt.Sprintf("%d for %d lines: %s", rec.Attempts, len(inRecord), firstLine(rec.Body)))
			} else {
				r.FailingRefusals += int(n - rec.Attempts)
			}
			if rec.WarningKind != "" {
				p.add("a failure record is also a warning ("+rec.WarningKind+")", firstLine(rec.Body))
			}
			continue
		}
		if rec.WarningKind == AttemptWarning {
			r.AttemptWarnings++
			// xla.oom.attempts on a warning counts its attempts; absent, it holds one.
			n := max(rec.Attempts, 1)
			r.AttemptsInWarnings += n
			switch {
			case len(inRecord) == 0:
				p.add("an allocation_attempt warning holds no attempt line this test knows (add its form to attemptPatterns)", firstLine(rec.Body))
			case n != int64(len(inRecord)):
				p.add("an allocation_attempt warning's "+AttemptsAttr+" is not the number of attempt lines it holds",
					fmt.Sprintf("%d for %d lines: %s", n, len(inRecord), firstLine(rec.Body)))
			case !rec.HasRequested || rec.Requested != inRecord[0].Bytes:
				p.add("an allocation_attempt warning does not state its (first) attempt's bytes", fmt.Sprintf("%d: %s", inRecord[0].Bytes, firstLine(rec.Body)))
			}
			continue
		}
		if len(inRecord) > 0 {
			kind := rec.WarningKind
			if kind == "" {
				kind = "untagged"
			}
			p.add("a record with an attempt line is neither a failure nor an allocation_attempt warning ("+kind+")", firstLine(rec.Body))
		}
	}
	checkRetry(&p, &r, job, obs)
	// A failure record names its failure's incident once; its statements,
	// dated by their arrival where the agent parses no time, can straddle a
	// bucket edge and carry two ids (docs/incidents.md, "Incidents").
	ids := map[string]bool{}
	for _, f := range failures {
		ids[f.IncidentID] = true
	}
	r.IncidentIDs = len(ids)
	if r.IncidentIDs != r.WantIncidents {
		p.add(fmt.Sprintf("the failure records carry %d distinct xla.oom.incident.id, want %d", r.IncidentIDs, r.WantIncidents), "")
	}
	for n := range requested {
		r.Requested = append(r.Requested, n)
	}
	sort.Slice(r.Requested, func(a, b int) bool { return r.Requested[a] < r.Requested[b] })

	// No attempt is lost or counted as a failure.
	if got := r.AttemptsInFailures + r.AttemptsInWarnings + int64(r.FailingRefusals); got != int64(r.AttemptsInLog) {
		p.add(fmt.Sprintf("%s over failures (%d) + attempts in allocation_attempt warnings (%d) + refusals of the failing request that are the failure (%d) = %d, but the log has %d attempt lines",
			AttemptsAttr, r.AttemptsInFailures, r.AttemptsInWarnings, r.FailingRefusals, got, r.AttemptsInLog), "")
	}
	if r.AttemptWarningsMetric != int64(r.AttemptWarnings) {
		p.add(fmt.Sprintf("xla.memory.warnings{allocation_attempt} = %d, but %d records are allocation_attempt warnings", r.AttemptWarningsMetric, r.AttemptWarnings), "")
	}
	r.Problems = p.lines()
	return r
}

// checkFailureSizes: a failure record of a job whose failing request is known
// states that request; no failure record states an attempt's size.
func checkFailureSizes(p *problems, job Job, attempts []Attempt, rec Record) {
	if job.FailingRequest > 0 && (!rec.HasRequested || !sameSize(rec.Requested, job.FailingRequest)) {
		stated := "no requested size"
		if rec.HasRequested {
			stated = fmt.Sprintf("%d bytes (%s)", rec.Requested, oom.HumanBytes(rec.Requested))
		}
		p.add(fmt.Sprintf("a failure record does not state the failing request, %d bytes (%s)", job.FailingRequest, oom.HumanBytes(job.FailingRequest)),
			stated+": "+firstLine(rec.Body))
	}
	if !rec.HasRequested {
		return
	}
	for _, a := range attempts {
		if sameSize(rec.Requested, a.Bytes) && (job.FailingRequest == 0 || !sameSize(a.Bytes, job.FailingRequest)) {
			p.add("a failure record states an attempt's size", fmt.Sprintf("%s (the attempt of line %d): %s", oom.HumanBytes(a.Bytes), a.Line, firstLine(rec.Body)))
			return
		}
	}
}

// WriteTable prints one line per job: what it did and what the run made of it.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "job\texit\tfailed\tincidents (want)\tids\tfailure records\tfailing request\tstated by failures\tattempts in log\tattempt warnings\tattempts in failures\trefusal is the failure\tretry (explain)\tproblems")
	for _, r := range results {
		failing := "-"
		if r.Job.FailingRequest > 0 {
			failing = fmt.Sprintf("%d (%s)", r.Job.FailingRequest, oom.HumanBytes(r.Job.FailingRequest))
		}
		stated := statedSizes(r.Requested)
		exit := fmt.Sprint(r.Job.ReturnCode)
		if r.Job.ReturnCode < 0 {
			exit = "holder"
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%v\t%d (%d)\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%d\n", r.Job.Name, exit, r.Job.Failed, r.Incidents, r.WantIncidents,
			r.IncidentIDs, r.FailureRecords, failing, stated, r.AttemptsInLog, r.AttemptWarnings, r.AttemptsInFailures, r.FailingRefusals,
			retryColumn(&r), len(r.Problems))
	}
	return tw.Flush() // the table is buffered until here
}

// statedSizes lists sizes in their human form, each once, the first three
// of them and how many more.
func statedSizes(sizes []int64) string {
	var human []string
	for _, n := range sizes {
		if h := oom.HumanBytes(n); !slices.Contains(human, h) {
			human = append(human, h)
		}
	}
	switch {
	case len(human) == 0:
		return "-"
	case len(human) > 3:
		return fmt.Sprintf("%s and %d more", strings.Join(human[:3], ", "), len(human)-3)
	}
	return strings.Join(human, ", ")
}
