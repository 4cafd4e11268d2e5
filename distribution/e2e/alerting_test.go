// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// alertingConfig is the collector of the alerting tests: file_log reads
// <logs>/<host>/<service>.log (resource host.name and service.name), the
// xla_oom processor tags, one connector feeds the Prometheus exporter (pull),
// the remote-write exporter (push) and a file, a delta connector a second
// file. Windows are seconds long so that expiry and repeats fit in a test.
const alertingConfig = `
receivers:
  file_log:
    include:
      - ${env:XLAOOM_LOGS}
    start_at: beginning
    include_file_path: true
    poll_interval: 100ms
    operators:
      - type: regex_parser
        parse_from: attributes["log.file.path"]
        regex: '(?P<host>[^/\\]+)[/\\](?P<service>[^/\\]+)\.log$'
        parse_to: resource
      - type: move
        from: resource["host"]
        to: resource["host.name"]
      - type: move
        from: resource["service"]
        to: resource["service.name"]
      # The record's time is the one written at the start of its line, not
      # when file_log read it, so a slow machine cannot merge two failures.
      - type: regex_parser
        parse_from: body
        regex: '^(?P<written>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z) '
        timestamp:
          parse_from: attributes.written
          layout_type: gotime
          layout: '2006-01-02T15:04:05.000000000Z'
        on_error: send_quiet
processors:
  xla_oom:
    incident_window: 3s
    # The test writes one job's failures again into the same files, with no
    # restart between them, to check the pages and the counters; the repeat
    # rule would make the later ones futile (its own tests are the
    # processor's and the gateway's).
    repeats:
      enabled: false
connectors:
  xla_oom:
    emit_interval: 500ms
    series_expiry: 8s   # above the failures' 5s spacing: a series lives through a loop
    incident_window: 3s
  xla_oom/delta:
    aggregation_temporality: delta
    emit_interval: 500ms
    series_expiry: 1m   # series live across the failures, so their points must touch
    incident_window: 3s
exporters:
  prometheus:
    endpoint: ${env:XLAOOM_PROMETHEUS}
    resource_to_telemetry_conversion:
      enabled: true
  prometheus_remote_write:
    endpoint: ${env:XLAOOM_REMOTE_WRITE}
    resource_to_telemetry_conversion:
      enabled: true
  file/cumulative:
    path: ${env:XLAOOM_OUT}/cumulative.json
  file/delta:
    path: ${env:XLAOOM_OUT}/delta.json
service:
` + quietTelemetry + `  pipelines:
    logs:
      receivers: [file_log]
      processors: [xla_oom]
      exporters: [xla_oom, xla_oom/delta]
    metrics:
      receivers: [xla_oom]
      exporters: [prometheus, prometheus_remote_write, file/cumulative]
    metrics/delta:
      receivers: [xla_oom/delta]
      exporters: [file/delta]
`

const (
	// compileOOM is one compile-time failure as each host of the job logs it:
	// futile (xla_oom_retry="futile"), a restart fails the same way.
	compileOOM = "E0912 07:01:12.118224    4412 train.py:244] jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 118.42G of 95.74G hbm. Exceeded hbm capacity by 22.68G.\n"
	// rematWarning is a memory-pressure warning (docs/early-warning.md), not a failure.
	rematWarning = "W0912 07:08:01.224101    4412 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 58.44GiB (62750982717 bytes), down from 61.02GiB (65520000000 bytes) originally\n"
	// runtimeOOM is a run-time failure that prints the request and the free
	// memory; whether a restart helps is unknown.
	runtimeOOM = "E0912 07:09:13.044581    4412 train.py:330] ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00G. That was not possible. There are 6.43G free.; (0x0x1_HBM0)\n"
	jobHosts   = 64
)

// TestAlerting runs the collector with two real Prometheus servers of each
// version found (see prometheusServers), one scraping the Prometheus
// exporter and one receiving remote write, both evaluating the shipped rules
// with short windows:
//
//  1. a futile failure (compile-time) of one job and two restarts that fail
//     the same way page once, as XlaOomFutile, and neither as incidents nor
//     as a crash loop;
//  2. one OOM on 64 hosts of another job pages exactly once, on the job;
//  3. the same failure after the connector expired the series pages again;
//  4. a crash loop pages once as XlaOomCrashLoop, and no incident pages twice;
//  5. a futile failure of the same job right after the loop pages once as
//     XlaOomFutile, and the loop's incidents page no more;
//
// and then checks that no sample was rejected (Prometheus's counters and
// logs, the collector's log), that every series' point times strictly
// increase with start <= time and delta points tiling, and that every query
// of the Grafana dashboard returns data.
func TestAlerting(t *testing.T) {
	for _, server := range prometheusServers(t) {
		t.Run(server.name, func(t *testing.T) { runAlerting(t, server.bin) })
	}
}

func runAlerting(t *testing.T, promBin string) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	out := filepath.Join(dir, "out")
	for h := range jobHosts {
		// A first line of its own: file_log tells files apart by their first bytes.
		appendFile(t, hostLog(logs, h), fmt.Sprintf("I0912 06:58:05.118224    4412 train.py:118] process %d of %d starting\n", h, jobHosts))
	}
	for h := range futileHosts {
		appendFile(t, jobLog(logs, h, futileJob), fmt.Sprintf("I0912 06:58:06.118224    5512 finetune.py:40] process %d of %d starting\n", h, futileHosts))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "collector.yaml")
	if err := os.WriteFile(cfgPath, []byte(alertingConfig), 0o644); err != nil {
		t.Fatal(err)
	}

	push := startPrometheus(t, promBin, filepath.Join(dir, "push"), "", true)
	coll, ports := startCollector(t, "collector", cfgPath, func(p *collector.Ports) []string {
		return []string{
			"XLAOOM_LOGS=" + filepath.Join(logs, "*", "*.log"),
			"XLAOOM_OUT=" + out,
			"XLAOOM_PROMETHEUS=" + p.Addr("prom"),
			"XLAOOM_REMOTE_WRITE=" + push.base + "/api/v1/write",
		}
	}, "prom")
	exporter := ports.Addr("prom")
	pull := startPrometheus(t, promBin, filepath.Join(dir, "pull"), exporter, false)
	servers := map[string]*prometheus{"pull": pull, "push": push}

	eventually(t, 30*time.Second, func() string {
		r, err := pull.query(`up{job="otelcol-xlaoom"}`)
		if err != nil || len(r) != 1 || r[0].Value != "1" {
			return fmt.Sprintf("Prometheus does not scrape the collector yet: %v %v", r, err)
		}
		return ""
	})
	watch := watchAlerts(t, servers)

	failureOf := func(job string, hosts int, line string) {
		written := time.Now().UTC().Format("2006-01-02T15:04:05.000000000Z") + " "
		for h := range hosts {
			appendFile(t, jobLog(logs, h, job), written+line)
		}
	}
	failure := func(line string) { failureOf("trainer", jobHosts, line) }

	// 1. A futile failure (compile-time) of the job finetune and two restarts
	// that fail the same way, each five seconds after the failure before
	// (incident_window is 3s): one page, XlaOomFutile; the three incidents
	// would be a crash loop, which steps aside for it, and no incident
	// pages. Then the job trainer, whose failures are not futile.
	for range 3 {
		time.Sleep(5 * time.Second)
		failureOf(futileJob, futileHosts, compileOOM)
	}
	for name, p := range servers {
		waitJobAlert(t, name, p, futileJob, "XlaOomFutile", "firing")
		assertOneAlert(t, name, p, "XlaOomFutile")
		waitValue(t, name, p, `sum(max_over_time(xla_oom_incidents_total{service_name="`+futileJob+`",xla_oom_retry="futile"}[1m]))`, "3")
	}

	// 2. One failure on 64 hosts: one page, on the job.
	failure(runtimeOOM)
	for name, p := range servers {
		waitAlert(t, name, p, "XlaOomIncident", "firing")
		assertOneAlert(t, name, p, "XlaOomIncident")
		// every host's record counted, on its host's series (which may have expired already)
		waitValue(t, name, p, `count(max_over_time(xla_oom_errors_total{service_name="trainer"}[1m]))`, "64")
	}
	// The page ends and the series expire (an end marker: the series goes stale).
	for name, p := range servers {
		waitAlert(t, name, p, "XlaOomIncident", "")
		waitValue(t, name, p, `count(xla_oom_incidents_total{service_name="trainer"})`, "")
	}

	// 3. The same failure again, after expiry: the counter continues, the page fires again.
	failure(runtimeOOM)
	for name, p := range servers {
		waitAlert(t, name, p, "XlaOomIncident", "firing")
		assertOneAlert(t, name, p, "XlaOomIncident")
		waitValue(t, name, p, `sum(max_over_time(xla_oom_incidents_total{service_name="trainer"}[1m]))`, "2")
	}

	// 4. A crash loop: three more failures five seconds apart, which also
	// feed the size histograms. The page of step 3 goes on; from the third
	// the job pages once as a crash loop and the incident alert steps aside.
	// A memory warning first feeds the dashboard's early-warning panel; it
	// pages nothing.
	failure(rematWarning)
	for range 3 {
		time.Sleep(5 * time.Second)
		failure(runtimeOOM)
	}
	for name, p := range servers {
		waitAlert(t, name, p, "XlaOomCrashLoop", "firing")
		assertOneAlert(t, name, p, "XlaOomCrashLoop")
		// the E0100 series continues to 5
		waitValue(t, name, p, `max(max_over_time(xla_oom_incidents_total{service_name="trainer",xla_error_code="E0100"}[1m]))`, "5")
	}

	// Every panel of the dashboard has data now, before the loop's series
	// (the size histograms among them) expire.
	checkDashboard(t, servers)

	// 5. A futile failure of the same job five seconds after the loop's
	// last failure (a new incident: incident_window is 3s, while the
	// loop's E0100 page would still be on but for the crash loop), and two
	// restarts: one page, XlaOomFutile; the crash loop steps aside for it,
	// and E0100 does not page again while its series expires.
	for range 3 {
		time.Sleep(5 * time.Second)
		failure(compileOOM)
	}
	for name, p := range servers {
		waitAlert(t, name, p, "XlaOomFutile", "firing")
		waitAlert(t, name, p, "XlaOomCrashLoop", "")
		waitValue(t, name, p, `sum(max_over_time(xla_oom_incidents_total{service_name="trainer",xla_oom_retry="futile"}[1m]))`, "3")
	}
	time.Sleep(3 * time.Second) // let a second page, if any, show up
	for name, episodes := range watch.stop() {
		want := "XlaOomCrashLoop=1 XlaOomFutile=1 XlaOomIncident=2 finetune:XlaOomFutile=1"
		if episodes != want {
			t.Errorf("%s: firing episodes %s, want %s (trainer: one per incident outside the loop, one for the loop, one for its futile failures; finetune: one for its futile failures)", name, episodes, want)
		} else {
			t.Logf("%s: firing episodes %s", name, episodes)
		}
	}

	checkNoRejections(t, push, coll.Log)
	checkPointTimes(t, filepath.Join(out, "cumulative.json"), false)
	checkPointTimes(t, filepath.Join(out, "delta.json"), true)
}

// futileJob is the job of step 1, on futileHosts hosts.
const (
	futileJob   = "finetune"
	futileHosts = 4
)

func hostLog(logs string, h int) string { return jobLog(logs, h, "trainer") }

func jobLog(logs string, h int, job string) string {
	return filepath.Join(logs, fmt.Sprintf("tpu-host-%02d", h), job+".log")
}

// checkNoRejections: the remote-write receiver rejected nothing (no 4xx/5xx
// answer, no out-of-order or out-of-bounds sample, nothing in its log), and
// the collector logged no failed export.
func checkNoRejections(t *testing.T, push *prometheus, collectorLog string) {
	t.Helper()
	written, err := push.selfMetric("prometheus_http_requests_total", `handler="/api/v1/write"`, `code="204"`)
	if err != nil || written == 0 {
		t.Errorf("remote write: %v accepted requests (%v), want some", written, err)
	}
	for _, c := range []string{`code="400"`, `code="500"`} {
		if n, err := push.selfMetric("prometheus_http_requests_total", `handler="/api/v1/write"`, c); err != nil || n != 0 {
			t.Errorf("remote write: %v requests answered %s (%v)", n, c, err)
		}
	}
	for _, m := range []string{"prometheus_tsdb_out_of_order_samples_total", "prometheus_tsdb_out_of_bound_samples_total"} {
		if n, err := push.selfMetric(m); err != nil || n != 0 {
			t.Errorf("%s = %v (%v)", m, n, err)
		}
	}
	rejected := regexp.MustCompile(`(?i)out of order|out of bounds|duplicate sample|error appending|error on ingesting`)
	if b, err := os.ReadFile(push.log); err != nil || rejected.Match(b) {
		t.Errorf("Prometheus logged rejected samples (%v):\n%s", err, b)
	}
	failed := regexp.MustCompile(`(?i)exporting failed|permanent error|dropping data`)
	if b, err := os.ReadFile(collectorLog); err != nil || failed.Match(b) {
		t.Errorf("the collector logged failed exports (%v):\n%s", err, b)
	}
}

// checkPointTimes reads the metrics a file exporter wrote and checks every
// series: point times strictly increase, start <= time, and, when delta
// (whose series outlive the test), each point starts where the previous one
// of its series ended (gauges have no start).
func checkPointTimes(t *testing.T, path string, delta bool) {
	t.Helper()
	time.Sleep(1500 * time.Millisecond) // the file exporter flushes every second
	type last struct{ start, time uint64 }
	seen := map[string]last{}
	points, problems, touching := 0, 0, 0
	report := func(format string, args ...any) {
		if problems++; problems <= 10 {
			t.Errorf(format, args...)
		}
	}
	var u pmetric.JSONUnmarshaler
	err := records.EachLine(path, func(n int, line []byte) error {
		md, err := u.UnmarshalMetrics(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		forEachPoint(md, func(key string, start, ts uint64) {
			points++
			if start > ts {
				report("%s: %s: start %d after time %d", path, key, start, ts)
			}
			if prev, ok := seen[key]; ok {
				if ts <= prev.time {
					report("%s: %s: time %d not after the previous %d", path, key, ts, prev.time)
				}
				if delta && start != 0 {
					if start != prev.time {
						report("%s: %s: delta start %d is not the previous end %d", path, key, start, prev.time)
					}
					touching++
				}
			}
			seen[key] = last{start, ts}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if points == 0 {
		t.Errorf("%s: no points", path)
	}
	if delta && touching == 0 {
		t.Errorf("%s: no delta point starts where its predecessor ended", path)
	}
	t.Logf("%s: %d points of %d series checked", filepath.Base(path), points, len(seen))
	if delta {
		t.Logf("%s: %d points start where their predecessor ended", filepath.Base(path), touching)
	}
}

func forEachPoint(md pmetric.Metrics, f func(key string, start, ts uint64)) {
	for _, rm := range md.ResourceMetrics().All() {
		res := fmt.Sprint(rm.Resource().Attributes().AsRaw())
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				key := func(attrs map[string]any) string { return res + " " + m.Name() + fmt.Sprint(attrs) }
				switch m.Type() {
				case pmetric.MetricTypeSum:
					for _, dp := range m.Sum().DataPoints().All() {
						f(key(dp.Attributes().AsRaw()), uint64(dp.StartTimestamp()), uint64(dp.Timestamp()))
					}
				case pmetric.MetricTypeGauge:
					for _, dp := range m.Gauge().DataPoints().All() {
						f(key(dp.Attributes().AsRaw()), uint64(dp.StartTimestamp()), uint64(dp.Timestamp()))
					}
				case pmetric.MetricTypeHistogram:
					for _, dp := range m.Histogram().DataPoints().All() {
						f(key(dp.Attributes().AsRaw()), uint64(dp.StartTimestamp()), uint64(dp.Timestamp()))
					}
				default:
				}
			}
		}
	}
}
