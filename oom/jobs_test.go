// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// The whole job logs of testdata/jobs (real H100 jobs, see its README), read
// record by record as the agent groups them: a line with a log header starts
// a record, every other line continues it. Per job: a job that failed has a
// failure record and one that exited 0 has none; every failure record states
// the failing request, never an attempt's size; every attempt line is counted
// once, as a warning or inside a failure's record.

const jobsDir = "testdata/jobs"

// jobAttemptLine is a line that starts an allocation attempt: StreamExecutor's
// refusals and the cudaMallocAsync refusals, other than the refusal of the
// failing request itself (which is the failure, not an attempt on the way).
var (
	jobAttemptLine = regexp.MustCompile(`Failed to allocate (?:device|host|collective) memory of \S+ \((\d+) bytes\)`)
	jobAsyncLine   = regexp.MustCompile(`cuMemAllocAsync failed to allocate (\d+) bytes`)
)

// jobsCaught are jobs that exited 0 but hold a failure statement: the
// program caught its own OOM, so the allocator's report of the request it
// refused (the BFC warning) was logged and no status followed. One record
// cannot tell; the failure stage, which reads what follows, closes it as
// went_on (internal/assembly).
var jobsCaught = map[string]bool{"caught_oom_halving_exit0": true}

type jobManifest struct {
	Jobs map[string]struct {
		Failed              bool   `json:"failed"`
		FailingRequestBytes *int64 `json:"failing_request_bytes"`
	} `json:"jobs"`
}

func readJobRecords(t *testing.T, name string, failing *int64) (records []string, attemptLines int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(jobsDir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	var cur []string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if m := jobAttemptLine.FindStringSubmatch(line); m != nil && (failing == nil || m[1] != strconv.FormatInt(*failing, 10)) {
			attemptLines++
		}
		if m := jobAsyncLine.FindStringSubmatch(line); m != nil && (failing == nil || m[1] != strconv.FormatInt(*failing, 10)) {
			attemptLines++
		}
		if StartsRecord(line) && len(cur) > 0 {
			records = append(records, strings.Join(cur, "\n"))
			cur = nil
		}
		cur = append(cur, line)
	}
	return append(records, strings.Join(cur, "\n")), attemptLines
}

func TestJobs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(jobsDir, "jobs-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m jobManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Jobs) < 12 {
		t.Fatalf("%d jobs in the manifest", len(m.Jobs))
	}
	for name, job := range m.Jobs {
		t.Run(name, func(t *testing.T) {
			records, attemptLines := readJobRecords(t, name, job.FailingRequestBytes)
			failures, attempts, attemptWarnings := 0, 0, 0
			attemptSizes := map[int64]bool{}
			for _, rec := range records {
				f := Default().Find(rec, true)
				switch f.Found {
				case FoundReport:
					failures++
					attempts += f.Report.Attempts
					checkFailingRequest(t, f.Report, job.FailingRequestBytes, rec)
				case FoundWarning:
					if f.Warning.Kind == grammar.WarningAllocationAttempt {
						attemptWarnings++
						attempts += f.Warning.Attempts
						attemptSizes[f.Warning.Requested.Bytes] = true
					}
				}
			}
			failed := failures > 0
			if failed != job.Failed && !jobsCaught[name] {
				t.Errorf("%d failure records; the job failed: %v", failures, job.Failed)
			}
			if jobsCaught[name] && (job.Failed || !failed) {
				t.Errorf("a caught OOM changed: failed %v, %d failure records", job.Failed, failures)
			}
			if attempts != attemptLines {
				t.Errorf("%d attempts counted (%d attempt warnings), %d attempt lines in the log", attempts, attemptWarnings, attemptLines)
			}
			t.Logf("failed=%v failure records=%d attempts=%d (%d as warnings) request=%v", job.Failed, failures, attempts, attemptWarnings, deref(job.FailingRequestBytes))
		})
	}
}

// checkFailingRequest: a failure record states the request that failed
// (exactly, or rounded as XLA prints it), never an attempt's size.
func checkFailingRequest(t *testing.T, r grammar.Report, want *int64, rec string) {
	t.Helper()
	if want == nil || !r.Requested.Known {
		return
	}
	got := r.Requested.Bytes
	if got != *want && grammar.FormatHuman(got, true) != grammar.FormatHuman(*want, true) {
		t.Errorf("a failure record (%s) states %d bytes, the failing request was %d:\n%.300s", r.Family, got, *want, rec)
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
