// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	xlaoomprocessor "github.com/xlaoom/xlaoomprocessor"
	"github.com/xlaoom/xlaoomprocessor/internal/jobcheck"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector"
)

// jobsDir holds whole job logs and their manifest (README.md there).
const jobsDir = "../../../../oom/testdata/jobs"

// explainRetry is the retry verdict `xlaoom explain` gives the failure of a
// job log, "" when it finds none.
func explainRetry(t *testing.T, path string) string {
	t.Helper()
	findings, _ := jsonFindings(t, path)
	retry := ""
	for _, f := range findings {
		if f.Severity == "ERROR" {
			require.Empty(t, retry, "%s: one failure per job log", path)
			retry = f.Retry
		}
	}
	return retry
}

// TestJobsThroughProcessorAndConnector is the in-process twin of the
// distribution's end-to-end TestJobsWholeLogs (distribution/e2e/jobs_test.go):
// every whole job log of oom/testdata/jobs, grouped into records as the
// agent's multiline rule groups them (splitRecords), one service.name per job,
// goes through the xla_oom processor and then the xla_oom connector with their
// default settings, and each job is checked against its manifest by
// internal/jobcheck, its failure's retry verdict against xlaoom explain's.
func TestJobsThroughProcessorAndConnector(t *testing.T) {
	jobs, err := jobcheck.ReadJobs(jobsDir)
	require.NoError(t, err)
	ld := plog.NewLogs()
	logs := map[string]string{}
	for _, j := range jobs {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", j.Name)
		rl.Resource().Attributes().PutStr("host.name", "node-1")
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		for _, r := range readRecords(t, j.Log) {
			lrs.AppendEmpty().Body().SetStr(r.text)
		}
		b, err := os.ReadFile(j.Log)
		require.NoError(t, err)
		logs[j.Name] = string(b)
	}

	ctx := context.Background()
	metrics := new(consumertest.MetricsSink)
	cf := xlaoomconnector.NewFactory()
	conn, err := cf.CreateLogsToMetrics(ctx, connectortest.NewNopSettings(cf.Type()), cf.CreateDefaultConfig(), metrics)
	require.NoError(t, err)
	require.NoError(t, conn.Start(ctx, componenttest.NewNopHost()))
	tagged := new(consumertest.LogsSink)
	pf := xlaoomprocessor.NewFactory()
	proc, err := pf.CreateLogs(ctx, processortest.NewNopSettings(metadata.Type), pf.CreateDefaultConfig(), tagged)
	require.NoError(t, err)
	require.NoError(t, proc.Start(ctx, componenttest.NewNopHost()))
	require.NoError(t, proc.ConsumeLogs(ctx, ld))
	require.NoError(t, proc.Shutdown(ctx))
	for _, out := range tagged.AllLogs() {
		require.NoError(t, conn.ConsumeLogs(ctx, out))
	}
	require.NoError(t, conn.Shutdown(ctx)) // emits what it counted

	sums := new(jobcheck.Sums)
	for _, md := range metrics.AllMetrics() {
		sums.Add(md)
	}
	byJob := map[string][]jobcheck.Record{}
	for _, out := range tagged.AllLogs() {
		for i := 0; i < out.ResourceLogs().Len(); i++ {
			rl := out.ResourceLogs().At(i)
			job, _ := rl.Resource().Attributes().Get("service.name")
			for j := 0; j < rl.ScopeLogs().Len(); j++ {
				lrs := rl.ScopeLogs().At(j).LogRecords()
				for k := 0; k < lrs.Len(); k++ {
					byJob[job.Str()] = append(byJob[job.Str()], jobcheck.RecordOf(lrs.At(k).Body().AsString(), lrs.At(k).EventName(), lrs.At(k).Attributes()))
				}
			}
		}
	}
	results := make([]jobcheck.Result, 0, len(jobs))
	for _, j := range jobs {
		obs := sums.Observed(j.Name, byJob[j.Name])
		obs.ExplainRetry = explainRetry(t, j.Log)
		results = append(results, jobcheck.Check(j, logs[j.Name], obs))
	}
	var table strings.Builder
	if err := jobcheck.WriteTable(&table, results); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs through the processor and the connector:\n%s", len(jobs), table.String())
	for _, r := range results {
		for _, p := range r.Problems {
			t.Errorf("%s: %s", r.Job.Name, p)
		}
	}
}
