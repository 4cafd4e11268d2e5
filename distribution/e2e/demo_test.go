// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/demo"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/demorun"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// TestDemo runs what `make run` runs and checks what it reports: every sample
// record read and exported, exactly the expected OOM records tagged (codes per
// host, look-alikes untouched), the tables printed, the metrics scraped.
func TestDemo(t *testing.T) {
	res, out := runDemo(t)
	t.Log("\n" + out.String())
	want, err := demo.ReadRecords(filepath.Join(demoDir, "logs"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != len(want) {
		t.Errorf("exported %d records, the samples hold %d", len(res.Records), len(want))
	}
	// Every exported body is exactly one sample record: multiline joined the
	// continuation lines (tracebacks, breakdowns, dumps) and split at headers.
	bodies := map[string]int{}
	for _, r := range want {
		bodies[r.Host+"\x00"+r.Text]++
	}
	for _, r := range res.Records {
		k := r.ResourceStr("host.name") + "\x00" + r.Body
		if bodies[k] == 0 {
			t.Errorf("exported record is not a sample record (host %q):\n%s", r.ResourceStr("host.name"), r.Body)
			continue
		}
		bodies[k]--
	}
	got := map[string][]string{}
	for _, r := range res.Records {
		host := r.ResourceStr("host.name")
		code := r.Str("xla.error.code")
		for _, l := range demo.LookAlikes {
			if strings.Contains(r.Body, l) && code != "" {
				t.Errorf("look-alike %q tagged %s", l, code)
			}
		}
		if code == "" {
			continue
		}
		got[host] = append(got[host], code)
		for _, k := range []string{"xla.error.category", "xla.error.phase", "error.type"} {
			if r.Str(k) == "" {
				t.Errorf("%s %s record lacks %s", host, code, k)
			}
		}
		if len(r.Strings("xla.remediation")) == 0 {
			t.Errorf("%s %s record has no xla.remediation", host, code)
		}
	}
	if !reflect.DeepEqual(got, demo.Expected) {
		t.Errorf("tagged codes per host:\n got %v\nwant %v", got, demo.Expected)
	}
	if total := promtext.Sum(res.Metrics, "xla_oom_errors_total", nil); int(total) != demo.ExpectedTotal() {
		t.Errorf("xla_oom_errors_total adds up to %v, want %d", total, demo.ExpectedTotal())
	}
	for host, codes := range demo.Expected {
		for _, code := range codes {
			n := 0
			for _, c := range codes {
				if c == code {
					n++
				}
			}
			if v := promtext.Sum(res.Metrics, "xla_oom_errors_total", map[string]string{"host_name": host, "xla_error_code": code}); int(v) != n {
				t.Errorf("xla_oom_errors_total{host_name=%q,xla_error_code=%q} = %v, want %d", host, code, v, n)
			}
		}
	}
	// Early warning: the job that warns before it fails, warnings printed first.
	warned := map[string][]string{}
	for _, r := range res.Records {
		if kind := r.Str("xla.memory.warning"); kind != "" {
			if code := r.Str("xla.error.code"); code != "" {
				t.Errorf("a warning record carries xla.error.code %s", code)
			}
			warned[r.ResourceStr("host.name")] = append(warned[r.ResourceStr("host.name")], kind)
		}
	}
	if !reflect.DeepEqual(warned, demo.ExpectedWarnings) {
		t.Errorf("warnings per host:\n got %v\nwant %v", warned, demo.ExpectedWarnings)
	}
	if w, i := strings.Index(out.String(), "Early warnings: 2 memory-pressure warnings"), strings.Index(out.String(), "XLA OOM incidents:"); w < 0 || i < 0 || w > i {
		t.Errorf("the demo must print the warnings (at %d) before the incidents (at %d)", w, i)
	}
	if !strings.Contains(out.String(), "xla_memory_warnings_total (counter, per job: no host_name)") {
		t.Errorf("demo output lacks the warning counter")
	}
	for _, s := range []string{"XLA OOM incidents: 13, from 16 tagged records", "advice: ", "xla_oom_errors_total (counter)",
		"xla_oom_incidents_total (counter, per job: no host_name) -- the series the alerts page on",
		"13 incidents, the same count as the incident table above",
		"xla_oom_pressure_ratio", "xla_oom_requested_size_bytes (histogram)"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("demo output lacks %q", s)
		}
	}
	// One failure logged by two hosts is one incident, with both hosts.
	if !regexp.MustCompile(`(?m)^3 +09-12 07:02:44 +vit22b-train +gpu-train-0,gpu-train-1 +E0007 .* 3$`).MatchString(out.String()) {
		t.Errorf("demo output lacks the GPU job's first incident (3 records on 2 hosts)")
	}
	// Each incident shows its retry verdict: a TPU compile-time overflow is futile.
	if !regexp.MustCompile(`(?m)^\d+ .* E1000 .* futile +\d+$`).MatchString(out.String()) {
		t.Errorf("demo output lacks the retry verdict (futile) of a compile-time incident")
	}
	// The collector has stopped when the demo prints: no address of it.
	if strings.Contains(out.String(), "http://127.0.0.1") {
		t.Errorf("demo output points at the stopped collector")
	}
}

// TestDemoIncidentsAgreeWithMetric: the incidents the demo prints (tagged
// records grouped by xla.oom.incident.id, the processor's) are the failures
// xla_oom_incidents_total counts (the connector's, what the alerts page on),
// job by job, and each record is dated by its log header.
func TestDemoIncidentsAgreeWithMetric(t *testing.T) {
	res, _ := runDemo(t)
	ids := map[string]map[string]bool{} // job -> incident ids
	for _, r := range res.Records {
		if m := headerTime.FindStringSubmatch(r.Body); m == nil {
			t.Errorf("a sample record without a log header: %q", r.Body)
		} else if got, want := r.Time.UTC().Format("01-02 15:04:05"), m[1]+m[3]+m[5]+"-"+m[2]+m[4]+m[6]+" "+m[7]; got != want {
			t.Errorf("record dated %s, its header says %s: %q", got, want, r.Body)
		}
		if r.Str("xla.error.code") == "" {
			continue
		}
		job, id := r.ResourceStr("service.name"), r.Str("xla.oom.incident.id")
		if id == "" {
			t.Errorf("a tagged record of %s has no xla.oom.incident.id", job)
		}
		if ids[job] == nil {
			ids[job] = map[string]bool{}
		}
		ids[job][id] = true
	}
	total := 0
	for job, want := range demo.ExpectedIncidents {
		metric := promtext.Sum(res.Metrics, "xla_oom_incidents_total", map[string]string{"service_name": job})
		if len(ids[job]) != want || int(metric) != want {
			t.Errorf("%s: %d incident ids, xla_oom_incidents_total %v; want %d", job, len(ids[job]), metric, want)
		}
		total += want
	}
	if metric := promtext.Sum(res.Metrics, "xla_oom_incidents_total", nil); res.Incidents != int(metric) || res.Incidents != total {
		t.Errorf("the demo prints %d incidents, xla_oom_incidents_total adds up to %v; want both %d", res.Incidents, metric, total)
	}
}

// headerTime reads month, day and time of day from the sample headers:
// absl/glog (E0912 07:01:12.118224), TSL/Python (2025-09-12 07:00:03) and
// vLLM (INFO 09-12 07:20:14, behind a process prefix).
var headerTime = regexp.MustCompile(`^(?:\(\S+ pid=\d+\) )?(?:[IWEF](\d\d)(\d\d) |\d{4}-(\d\d)-(\d\d) |[A-Z]+ (\d\d)-(\d\d) )(\d\d:\d\d:\d\d)`)

// runDemo runs what `make run` runs and returns its result and output.
func runDemo(t *testing.T) (demorun.Result, *strings.Builder) {
	t.Helper()
	var out strings.Builder
	res, err := demorun.Run(&out, demorun.Options{
		Collector: collectorBin,
		Config:    filepath.Join(demoDir, "run.yaml"),
		Logs:      filepath.Join(demoDir, "logs", "*", "*.log"),
		Out:       t.TempDir(),
		Timeout:   90 * time.Second,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return res, &out
}

// TestDemoIsWhatFileLogAndPrometheusShow: the demo's collector has neither
// file_log nor the prometheus exporter (demo/run.yaml). Here otelcol-xlaoom
// runs demo/config.yaml, which has both, on the same logs: the records the
// demo's runner sent over OTLP are the records file_log read (body, time,
// host, job, file attributes) and were tagged alike, and the metrics the demo
// shows from metrics.json (promtext.FromOTLP) are the series the prometheus
// exporter serves, with the same values.
func TestDemoIsWhatFileLogAndPrometheusShow(t *testing.T) {
	dir := t.TempDir()
	logs, err := filepath.Abs(filepath.Join(demoDir, "logs", "*", "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	_, ports := startCollector(t, "collector", filepath.Join(demoDir, "config.yaml"), func(p *collector.Ports) []string {
		return []string{"XLAOOM_LOGS=" + logs, "XLAOOM_OUT=" + dir, "XLAOOM_PROMETHEUS=" + p.Addr("prom")}
	}, "prom")
	url := "http://" + ports.Addr("prom") + "/metrics"
	eventually(t, 60*time.Second, func() string {
		scraped, err := promtext.Scrape(url, 5*time.Second)
		if err != nil {
			return err.Error()
		}
		fromFile, err := promtext.ReadMetricsFile(filepath.Join(dir, "metrics.json"))
		if err != nil {
			return err.Error()
		}
		if promtext.Sum(scraped, "xla_oom_errors_total", nil) != float64(demo.ExpectedTotal()) {
			return "the exporter does not count every OOM record yet"
		}
		return sameSeries(scraped, fromFile)
	})
	fileLog, err := records.ReadFile(filepath.Join(dir, "records.json"))
	if err != nil {
		t.Fatal(err)
	}
	fileLog, _ = records.Split(fileLog) // the lines read; the failure records are the processor's
	res, _ := runDemo(t)
	if len(res.Records) != len(fileLog) {
		t.Fatalf("the demo sent %d records, file_log read %d", len(res.Records), len(fileLog))
	}
	key := func(r records.Record) string { return r.ResourceStr("host.name") + "\x00" + r.Body }
	read := map[string]records.Record{}
	for _, r := range fileLog {
		read[key(r)] = r
	}
	for _, r := range res.Records {
		f, ok := read[key(r)]
		if !ok {
			t.Errorf("the demo sent a record file_log did not read (%s): %.80q", r.ResourceStr("host.name"), r.Body)
			continue
		}
		for _, k := range []string{"service.name"} {
			if r.ResourceStr(k) != f.ResourceStr(k) {
				t.Errorf("%s: %s %q, file_log %q", r.ResourceStr("host.name"), k, r.ResourceStr(k), f.ResourceStr(k))
			}
		}
		if !r.Time.Equal(f.Time) {
			t.Errorf("%.60q: dated %s, file_log %s", r.Body, r.Time, f.Time)
		}
		// xla.oom.retry is left out: it reads the attempts a job logged
		// before a failure in the order they arrive, which file_log's
		// concurrent readers do not fix (the demo sends them in log order).
		for _, k := range []string{"log.file.path", "log.file.name", "xla.error.code", "xla.error.category", "xla.oom.incident.id", "xla.memory.warning"} {
			if r.Str(k) != f.Str(k) {
				t.Errorf("%.60q: %s %q, file_log's %q", r.Body, k, r.Str(k), f.Str(k))
			}
		}
	}
}

// sameSeries says how the xla_* series of a scrape and those read from the
// file exporter differ ("" if they do not). A scraped series has the labels
// of the file's and more (job, instance, otel_scope_*).
func sameSeries(scraped, fromFile []promtext.Sample) string {
	matched := map[int]bool{}
	n := 0
	for _, s := range scraped {
		if !strings.HasPrefix(s.Name, "xla_") {
			continue
		}
		n++
		found := false
		for i, f := range fromFile {
			if matched[i] || f.Name != s.Name || f.Value != s.Value || !labelsWithin(f.Labels, s.Labels) {
				continue
			}
			matched[i], found = true, true
			break
		}
		if !found {
			return "the demo does not show the scraped " + s.Key() + " = " + strconv.FormatFloat(s.Value, 'g', -1, 64)
		}
	}
	if n != len(fromFile) {
		return fmt.Sprintf("the demo shows %d series, the exporter serves %d", len(fromFile), n)
	}
	return ""
}

func labelsWithin(sub, all map[string]string) bool {
	for k, v := range sub {
		if all[k] != v {
			return false
		}
	}
	return true
}
