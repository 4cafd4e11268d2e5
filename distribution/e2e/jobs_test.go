// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
	"github.com/xlaoom/xlaoomprocessor/internal/jobcheck"
)

// jobsDir holds whole job logs and their manifest (README.md there).
const jobsDir = "../../oom/testdata/jobs"

// jobsOverlay is merged over examples/agent.yaml: the agent's receivers,
// multiline rules, service derivation and processors stay as shipped; its
// records go to a file and to the xla_oom connector (a gateway's part), whose
// metrics go to another file, instead of to the gateways.
const jobsOverlay = `connectors:
  xla_oom: {}
exporters:
  file/job-records:
    path: ${env:XLAOOM_TEST_RECORDS}
  file/job-metrics:
    path: ${env:XLAOOM_TEST_METRICS}
service:
  pipelines:
    logs:
      exporters: [file/job-records, xla_oom]
    metrics/xla_oom:
      receivers: [xla_oom]
      exporters: [file/job-metrics]
`

// TestJobsWholeLogs runs every whole job log of oom/testdata/jobs, as the job
// wrote it, through the agent's configuration (examples/agent.yaml: file_log
// with its multiline rules from the beginning, one service per job from the
// file's path, the xla_oom processor) and the xla_oom connector, all jobs in
// one collector, and checks per job what its manifest says it did: failed or
// not, one incident per failure, the failing request's size, and that no
// allocator attempt is counted as a failure; and that each failure record's
// retry verdict is xlaoom explain's, may_help where memory was held outside
// the job, in the records and the connector's label (internal/jobcheck). A
// new log and its manifest entry are all a new job needs.
func TestJobsWholeLogs(t *testing.T) {
	jobs, err := jobcheck.ReadJobs(jobsDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logRoot := filepath.Join(dir, "logs")
	logs := map[string]string{}
	for _, j := range jobs {
		b, err := os.ReadFile(j.Log)
		if err != nil {
			t.Fatal(err)
		}
		logs[j.Name] = string(b)
		// <root>/<service>/<file>.log: the agent's path rule names the service.
		appendFile(t, filepath.Join(logRoot, j.Name, "job.log"), string(b))
	}
	overlay := filepath.Join(dir, "jobs-overlay.yaml")
	appendFile(t, overlay, jobsOverlay)
	recordsFile, metricsFile := filepath.Join(dir, "records.json"), filepath.Join(dir, "metrics.json")

	started := time.Now()
	agent, _ := startProcess(t, "agent", collector.Command{
		Binary: collectorBin,
		Args: func(*collector.Ports) []string {
			return []string{"--config", filepath.Join(examplesDir, "agent.yaml"), "--config", overlay}
		},
		Env: func(p *collector.Ports) []string {
			return append(telemetryEnv(p),
				"XLAOOM_JOB_LOGS="+filepath.Join(logRoot, "*", "*.log"),
				"XLAOOM_CONTAINER_LOGS="+filepath.Join(dir, "no-pods", "*", "*", "*.log"),
				"XLAOOM_START_AT=beginning", "HOST_NAME=node-1", "XLAOOM_STORAGE_DIR="+filepath.Join(dir, "storage"),
				"XLAOOM_TEST_RECORDS="+recordsFile, "XLAOOM_TEST_METRICS="+metricsFile)
		},
		Ready: []string{"health"},
	})

	// Every non-blank line of every log is in an exported record: the whole
	// log has been read (the last record of each is flushed after file_log's
	// force_flush_period).
	var byJob map[string][]records.Record
	eventually(t, 60*time.Second, func() string {
		recs, err := records.ReadFile(recordsFile)
		if err != nil {
			return err.Error() // a line being written
		}
		lines, _ := records.Split(recs)
		byJob = recordsByService(lines)
		for _, j := range jobs {
			if got, want := bodyLines(byJob[j.Name]), jobcheck.LinesIn(logs[j.Name]); got != want {
				return fmt.Sprintf("%s: %d of %d lines exported", j.Name, got, want)
			}
		}
		return ""
	})
	// The connector emits once more as it shuts down, after the receiver has
	// stopped and every record it read has been consumed.
	if err := agent.Stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	sums, err := readJobSums(metricsFile)
	if err != nil {
		t.Fatal(err)
	}
	// Every record, the failure records sent at shutdown included.
	recs, err := records.ReadFile(recordsFile)
	if err != nil {
		t.Fatal(err)
	}
	byJob = recordsByService(recs)

	explained := explainRetries(t, jobs)
	results := make([]jobcheck.Result, 0, len(jobs))
	for _, j := range jobs {
		var recs []jobcheck.Record
		for _, r := range byJob[j.Name] {
			recs = append(recs, jobcheck.RecordOf(r.Body, r.EventName, r.Attributes))
		}
		obs := sums.Observed(j.Name, recs)
		obs.ExplainRetry = explained[j.Name]
		results = append(results, jobcheck.Check(j, logs[j.Name], obs))
	}
	var table strings.Builder
	if err := jobcheck.WriteTable(&table, results); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs through examples/agent.yaml + the xla_oom connector in %.1fs:\n%s", len(jobs), time.Since(started).Seconds(), table.String())
	for _, r := range results {
		for _, p := range r.Problems {
			t.Errorf("%s: %s", r.Job.Name, p)
		}
	}
}

// recordsByService groups exported records by their service.name.
func recordsByService(recs []records.Record) map[string][]records.Record {
	out := map[string][]records.Record{}
	for _, r := range recs {
		svc := r.ResourceStr("service.name")
		out[svc] = append(out[svc], r)
	}
	return out
}

func bodyLines(recs []records.Record) int {
	n := 0
	for _, r := range recs {
		n += jobcheck.LinesIn(r.Body)
	}
	return n
}

// readJobSums reads the connector's emissions from the file exporter's output.
func readJobSums(path string) (*jobcheck.Sums, error) {
	sums := new(jobcheck.Sums)
	var u pmetric.JSONUnmarshaler
	err := records.EachLine(path, func(n int, line []byte) error {
		md, err := u.UnmarshalMetrics(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		sums.Add(md)
		return nil
	})
	return sums, err
}
