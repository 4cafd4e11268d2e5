// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
	"github.com/xlaoom/xlaoomprocessor/internal/jobcheck"
)

// backlogLog holds three failures of one job over 32 hours, each behind a
// different header form: glog, Python logging, ISO 8601.
const backlogLog = `I1122 10:52:24.458781     537 pjrt_client.cc:582] Addressable PjRt-IFRT device: CudaDevice(id=0)
W1122 10:52:34.461392     537 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 93.13GiB (rounded to 100000000000) from the lower end requested by op
If this is caused by memory fragmentation, the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' may improve the situation.
Current allocation summary follows.
2026-11-23 02:40:11,204 INFO train.py: restarted on a smaller model
2026-11-23 02:41:05,771 ERROR train.py: Compilation of jit_train_step failed
jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:
Ran out of memory in memory space hbm. Used 118.42G of 95.74G hbm. Exceeded hbm capacity by 22.68G.
See https://openxla.org/xla/errors/error_1000 for more details.
2026-11-23T18:52:40.118 INFO train.py: restarted with batch 64
2026-11-23T18:52:58.502 ERROR train.py: Compilation of jit_train_step failed
jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:
Ran out of memory in memory space hbm. Used 101.07G of 95.74G hbm. Exceeded hbm capacity by 5.33G.
See https://openxla.org/xla/errors/error_1000 for more details.
`

// allInOneOverlay sends an all-in-one config's metrics to a file as well.
const allInOneOverlay = `exporters:
  file/backlog-metrics:
    path: ${env:XLAOOM_TEST_METRICS}
service:
  pipelines:
    metrics:
      exporters: [file/backlog-metrics]
`

// TestBacklogIncidents reads a job log holding three failures hours apart
// at once, as a new agent or one catching up after downtime does, through
// every shipped config that reads job logs: each record is dated by its log
// header, so the connector counts three incidents with xlaoom explain's
// verdicts, not one at the time the file was read.
func TestBacklogIncidents(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "logs", "backlog", "job.log")
	appendFile(t, logPath, backlogLog)
	explained := explainFailures(t, buildXlaoom(t), logPath)
	if len(explained) != 3 {
		t.Fatalf("xlaoom explain found %d failures, want 3: %v", len(explained), explained)
	}
	want := map[string]int64{}
	for _, retry := range explained {
		want[retry]++
	}
	for _, c := range []struct{ name, config, overlay string }{
		{"agent", filepath.Join(examplesDir, "agent.yaml"), jobsOverlay},
		{"all-in-one", filepath.Join(examplesDir, "all-in-one.yaml"), allInOneOverlay},
		{"packaged", filepath.Join(distDir, "packaging", "all-in-one.yaml"), allInOneOverlay},
	} {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			overlay := filepath.Join(work, "overlay.yaml")
			appendFile(t, overlay, c.overlay)
			recordsFile, metricsFile := filepath.Join(work, "records.json"), filepath.Join(work, "metrics.json")
			proc, _ := startProcess(t, c.name, collector.Command{
				Binary: collectorBin,
				Args:   func(*collector.Ports) []string { return []string{"--config", c.config, "--config", overlay} },
				Env: func(p *collector.Ports) []string {
					return append(telemetryEnv(p),
						"XLAOOM_JOB_LOGS="+filepath.Join(dir, "logs", "*", "*.log"), "XLAOOM_LOGS="+filepath.Join(dir, "logs", "*", "*.log"),
						"XLAOOM_CONTAINER_LOGS="+filepath.Join(work, "no-pods", "*", "*", "*.log"),
						"XLAOOM_KERNEL_LOG="+filepath.Join(work, "no-kern.log"), "XLAOOM_START_AT=beginning",
						"XLAOOM_STORAGE_DIR="+filepath.Join(work, "storage"), "XLAOOM_PROMETHEUS_ENDPOINT="+p.Addr("prometheus"),
						"XLAOOM_RECORDS_FILE="+recordsFile, "XLAOOM_TEST_RECORDS="+recordsFile, "XLAOOM_TEST_METRICS="+metricsFile)
				},
				Ready: []string{"telemetry"},
			})
			eventually(t, 60*time.Second, func() string {
				recs, err := records.ReadFile(recordsFile)
				if err != nil {
					return err.Error() // a line being written
				}
				lines, _ := records.Split(recs)
				if got, want := bodyLines(lines), jobcheck.LinesIn(backlogLog); got != want {
					return fmt.Sprintf("%d of %d lines exported", got, want)
				}
				return ""
			})
			// The connector emits once more as it shuts down.
			if err := proc.Stop(15 * time.Second); err != nil {
				t.Fatal(err)
			}
			sums, err := readJobSums(metricsFile)
			if err != nil {
				t.Fatal(err)
			}
			got := sums.Observed("backlog", nil).IncidentsByRetry
			if !maps.Equal(got, want) {
				t.Errorf("incidents by retry verdict %v, want xlaoom explain's %v", got, want)
			}
		})
	}
}
