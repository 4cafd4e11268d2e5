// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/xlaoom/xlaoomprocessor/distribution/demo"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// victoriaLogs finds the VictoriaLogs binary: $XLAOOM_VICTORIALOGS, the one
// scripts/install-victorialogs.sh installs, or victoria-logs on PATH. The
// test is skipped without it, except in CI, where .ci/run installs it.
func victoriaLogs(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("XLAOOM_VICTORIALOGS"); p != "" {
		return p
	}
	if p, err := filepath.Abs("../../out/tools/victorialogs/victoria-logs"); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("victoria-logs"); err == nil {
		return p
	}
	msg := "VictoriaLogs is not installed: log-store test NOT run. Install: make install-victorialogs (scripts/install-victorialogs.sh, Go only, pinned v1.52.1)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; .ci/run should have installed it")
	}
	t.Skip(msg)
	return ""
}

// logStore is a VictoriaLogs process.
type logStore struct{ base string }

func startLogStore(t *testing.T) *logStore {
	t.Helper()
	bin, data := victoriaLogs(t), t.TempDir()
	_, ports := startProcess(t, "victoria-logs", collector.Command{
		Binary: bin,
		Args: func(p *collector.Ports) []string {
			// Records keep the time their logs give them, however old.
			return []string{"-httpListenAddr=" + p.Addr("http"), "-storageDataPath=" + data, "-retentionPeriod=10y", "-loggerLevel=WARN"}
		},
		Ready: []string{"http"},
	})
	return &logStore{base: "http://" + ports.Addr("http")}
}

// query runs a LogsQL query and returns the entries, every field a string.
func (s *logStore) query(q string) ([]map[string]string, error) {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.PostForm(s.base+"/select/logsql/query", url.Values{"query": {q}})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return nil, fmt.Errorf("%s: HTTP %d: %s", q, resp.StatusCode, b.String())
	}
	var out []map[string]string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e map[string]string
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// TestLogStore sends the demo's sample records to the gateway of
// examples/gateway.yaml, which tags them and exports them with its
// otlp_http/logstore exporter (protobuf) to a real VictoriaLogs. The queries
// of docs/runbook.md find them again by code, by job, by size range and by
// incident; severity and every xla.* attribute arrive intact, and the
// untagged records arrive as they were sent.
func TestLogStore(t *testing.T) {
	store := startLogStore(t)
	pki := newTestPKI(t)
	fileOut := filepath.Join(t.TempDir(), "records.json")
	_, ports := startCollector(t, "gateway", filepath.Join(examplesDir, "gateway.yaml"), func(p *collector.Ports) []string {
		return append(gatewayEnv(p, fileOut, pki.gatewayTLSEnv(false)),
			"XLAOOM_LOG_EXPORTERS=[file/records, xla_oom, otlp_http/logstore]",
			"XLAOOM_LOGSTORE_LOGS_ENDPOINT="+store.base+"/insert/opentelemetry/v1/logs")
	}, "http")

	samples, err := demo.ReadRecords(filepath.Join(demoDir, "logs"))
	if err != nil {
		t.Fatal(err)
	}
	sendSamples(t, "https://"+ports.Addr("http")+"/v1/logs", pki, samples)

	// What the gateway exported is the reference: its file output.
	// Every sample, and one failure record per failure its statements name
	// (those no raised status closes come after the quiet interval).
	var sent []records.Record
	eventually(t, 60*time.Second, func() string {
		sent, _ = records.ReadFile(fileOut)
		lines, failures := records.Split(sent)
		if len(lines) != len(samples) {
			return fmt.Sprintf("the gateway exported %d records to its file, want %d", len(lines), len(samples))
		}
		named, made := map[string]bool{}, map[string]bool{}
		for _, r := range lines {
			if id := r.Str("xla.oom.failure.id"); id != "" {
				named[id] = true
			}
		}
		for _, r := range failures {
			made[r.Str("xla.oom.failure.id")] = true
		}
		if len(named) == 0 || len(made) != len(named) || len(failures) != len(named) {
			return fmt.Sprintf("%d failure records for %d failures", len(failures), len(named))
		}
		return ""
	})
	eventually(t, 60*time.Second, func() string {
		got, err := store.query("* | stats count() n")
		if err != nil || len(got) != 1 || got[0]["n"] != strconv.Itoa(len(sent)) {
			return fmt.Sprintf("VictoriaLogs holds %v records (%v), want %d", got, err, len(sent))
		}
		return ""
	})

	// The runbook's queries, each against the records it must find.
	var gpuIncident string
	for _, r := range sent {
		if r.ResourceStr("host.name") == "gpu-train-1" && r.Str("xla.error.code") != "" {
			gpuIncident = r.Str("xla.oom.incident.id")
			break
		}
	}
	for _, q := range []struct {
		query string
		want  func(r records.Record) bool
	}{
		{`xla.error.code:E1000`, func(r records.Record) bool { return r.Str("xla.error.code") == "E1000" }},
		{`service.name:"vit22b-train" xla.error.code:*`, func(r records.Record) bool {
			return r.ResourceStr("service.name") == "vit22b-train" && r.Str("xla.error.code") != ""
		}},
		{`xla.oom.requested.size:range[1GiB, 10GiB]`, func(r records.Record) bool {
			n, ok := r.Int("xla.oom.requested.size")
			return ok && n >= 1<<30 && n <= 10<<30
		}},
		{`xla.oom.incident.id:"` + gpuIncident + `"`, func(r records.Record) bool {
			return r.Str("xla.oom.incident.id") == gpuIncident
		}},
		// One row per failure and stream, with its facts (docs/incidents.md).
		{`xla.oom.failure.statements:*`, func(r records.Record) bool { return r.EventName == records.FailureEvent }},
	} {
		got, err := store.query(q.query)
		if err != nil {
			t.Fatal(err)
		}
		var gotKeys, wantKeys []string
		for _, e := range got {
			gotKeys = append(gotKeys, e["host.name"]+" "+e["_msg"])
		}
		for _, r := range sent {
			if q.want(r) {
				wantKeys = append(wantKeys, r.ResourceStr("host.name")+" "+r.Body)
			}
		}
		sort.Strings(gotKeys)
		sort.Strings(wantKeys)
		if len(wantKeys) == 0 || strings.Join(gotKeys, "\n") != strings.Join(wantKeys, "\n") {
			t.Errorf("%s: found %d records, want %d:\n got %q\nwant %q", q.query, len(gotKeys), len(wantKeys), gotKeys, wantKeys)
		}
	}

	// Every record, field by field.
	all, err := store.query("*")
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]map[string]string{}
	for _, e := range all {
		stored[e["host.name"]+" "+e["_msg"]+" "+e["xla.oom.failure.id"]] = e
	}
	for _, r := range sent {
		e := stored[r.ResourceStr("host.name")+" "+r.Body+" "+r.Str("xla.oom.failure.id")]
		if e == nil {
			t.Errorf("not in VictoriaLogs: %s %.80q", r.ResourceStr("host.name"), r.Body)
			continue
		}
		compareStored(t, r, e)
	}
}

// compareStored checks that e, as VictoriaLogs returns it, holds exactly
// r's severity and attributes, and its resource.
func compareStored(t *testing.T, r records.Record, e map[string]string) {
	t.Helper()
	name := fmt.Sprintf("%s %.60q", r.ResourceStr("host.name"), r.Body)
	if want := strconv.Itoa(int(r.SeverityNumber)); r.SeverityNumber != 0 && e["severity_number"] != want {
		t.Errorf("%s: severity_number %q, want %s", name, e["severity_number"], want)
	}
	if r.SeverityNumber == 0 && e["severity_number"] != "" && e["severity_number"] != "0" {
		t.Errorf("%s: severity_number %q, sent none", name, e["severity_number"])
	}
	if r.Str("xla.error.code") != "" && r.SeverityNumber != plog.SeverityNumberError {
		t.Errorf("%s: a tagged record with severity %v, want ERROR", name, r.SeverityNumber)
	}
	want := map[string]string{}
	r.Attributes.Range(func(k string, v pcommon.Value) bool {
		want[k] = storedForm(v)
		return true
	})
	r.Resource.Range(func(k string, v pcommon.Value) bool {
		want[k] = storedForm(v)
		return true
	})
	for k, v := range want {
		if got, ok := e[k]; !ok || !sameValue(got, v) {
			t.Errorf("%s: %s = %.120q, want %.120q", name, k, got, v)
		}
	}
	for k := range e {
		if _, ok := want[k]; !ok && (strings.HasPrefix(k, "xla.") || k == "error.type") {
			t.Errorf("%s: %s in the store, not in the record", name, k)
		}
	}
}

// storedForm is a value as VictoriaLogs stores it: strings as they are,
// numbers in decimal, lists and maps as JSON.
func storedForm(v pcommon.Value) string {
	switch v.Type() {
	case pcommon.ValueTypeSlice, pcommon.ValueTypeMap:
		b, _ := json.Marshal(v.AsRaw())
		return string(b)
	default:
		return v.AsString()
	}
}

// sameValue compares two stored forms, JSON by meaning (key order).
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}

// sendSamples posts the sample records as OTLP/HTTP protobuf, one resource
// per host (host.name, service.name = the job), each dated by its header on
// yesterday's date (the day does not matter; the minutes between records do).
func sendSamples(t *testing.T, endpoint string, pki testPKI, samples []demo.Record) {
	t.Helper()
	day := time.Now().UTC().AddDate(0, 0, -1).Truncate(24 * time.Hour)
	ld := plog.NewLogs()
	byHost := map[string]plog.LogRecordSlice{}
	for _, s := range samples {
		lrs, ok := byHost[s.Host]
		if !ok {
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutStr("host.name", s.Host)
			rl.Resource().Attributes().PutStr("service.name", s.Job)
			lrs = rl.ScopeLogs().AppendEmpty().LogRecords()
			byHost[s.Host] = lrs
		}
		m := headerTime.FindStringSubmatch(s.Text)
		if m == nil {
			t.Fatalf("sample record without a header: %.80q", s.Text)
		}
		clock, err := time.Parse("15:04:05", m[7])
		if err != nil {
			t.Fatal(err)
		}
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(day.Add(clock.Sub(clock.Truncate(24 * time.Hour)))))
		lr.Attributes().PutStr("log.file.name", s.Job+".log")
		lr.Body().SetStr(s.Text)
	}
	body, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	c := http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: pki.clientTLS(t, false)}}
	resp, err := c.Post(endpoint, "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: HTTP %d", endpoint, resp.StatusCode)
	}
}
