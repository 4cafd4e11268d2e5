// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/demo"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// TestAgentToGateway runs examples/agent.yaml and examples/gateway.yaml as two
// processes: the agent reads plain job logs (multiline) and Kubernetes CRI
// container logs (container + recombine), tags OOM records and forwards them
// over OTLP/gRPC; the gateway counts them with the xla_oom connector, serves
// the metrics to Prometheus and writes the records to a file. Every record
// that goes in comes out once, unchanged but for the tags.
func TestAgentToGateway(t *testing.T) {
	dir := t.TempDir()

	// Job logs: the demo samples, /…/jobs/<service>/<file>.log.
	jobs := filepath.Join(dir, "jobs")
	samples, err := filepath.Glob(filepath.Join(demoDir, "logs", "*", "*.log"))
	if err != nil || len(samples) == 0 {
		t.Fatalf("samples: %v %v", samples, err)
	}
	for _, f := range samples {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		appendFile(t, filepath.Join(jobs, filepath.Base(filepath.Dir(f)), filepath.Base(f)), string(b))
	}
	jobRecords, err := demo.ReadRecords(filepath.Join(demoDir, "logs"))
	if err != nil {
		t.Fatal(err)
	}

	// Container logs: one TPU trainer's log in CRI format, every line behind
	// "<time> stderr F ", in the kubelet's /var/log/pods layout.
	tpuLog, err := os.ReadFile(filepath.Join(demoDir, "logs", "tpu-train-w0", "llama13b-train.log"))
	if err != nil {
		t.Fatal(err)
	}
	var cri strings.Builder
	ts := time.Date(2025, 9, 12, 7, 0, 0, 0, time.UTC)
	for _, line := range strings.Split(strings.TrimRight(string(tpuLog), "\n"), "\n") {
		ts = ts.Add(1500 * time.Microsecond)
		fmt.Fprintf(&cri, "%s stderr F %s\n", ts.Format("2006-01-02T15:04:05.000000000Z"), line)
	}
	pods := filepath.Join(dir, "pods")
	appendFile(t, filepath.Join(pods, "ml_trainer-0_6f1c2b9e-8d3a-4c7e-9b1f-2a4d6e8f0a1c", "jax", "0.log"), cri.String())
	var podRecords []demo.Record
	for _, r := range jobRecords {
		if r.Host == "tpu-train-w0" {
			podRecords = append(podRecords, r)
		}
	}

	// The examples as shipped: the gateway serves OTLP over TLS only and the
	// agent verifies it against the CA (no client certificates here; see tls_test.go).
	pki := newTestPKI(t)
	gwRecords := filepath.Join(dir, "gateway", "records.json")
	if err := os.MkdirAll(filepath.Dir(gwRecords), 0o755); err != nil {
		t.Fatal(err)
	}
	_, gwPorts := startCollector(t, "gateway", filepath.Join(examplesDir, "gateway.yaml"), func(p *collector.Ports) []string {
		return gatewayEnv(p, gwRecords, pki.gatewayTLSEnv(false))
	}, "otlp", "prom")
	gwOTLP, gwProm := gwPorts.Addr("otlp"), gwPorts.Addr("prom")

	_, agentPorts := startCollector(t, "agent", filepath.Join(examplesDir, "agent.yaml"), func(p *collector.Ports) []string {
		return append(append(telemetryEnv(p),
			"XLAOOM_JOB_LOGS="+filepath.Join(jobs, "*", "*.log"),
			"XLAOOM_CONTAINER_LOGS="+filepath.Join(pods, "*", "*", "*.log"),
			"XLAOOM_START_AT=beginning", "HOST_NAME=node-7", "XLAOOM_STORAGE_DIR="+filepath.Join(dir, "storage"),
			"XLAOOM_GATEWAYS=["+gwOTLP+"]",
		), pki.agentTLSEnv(false)...)
	}, "telemetry")
	agentTelemetry := agentPorts.Port("telemetry")

	wantTotal := len(jobRecords) + len(podRecords)
	var got []records.Record
	eventually(t, 60*time.Second, func() string {
		got, err = records.ReadFile(gwRecords)
		if err != nil {
			return err.Error()
		}
		got, _ = records.Split(got) // the lines; the processor's failure records are not
		if len(got) != wantTotal {
			return fmt.Sprintf("gateway wrote %d records, want %d", len(got), wantTotal)
		}
		return ""
	})
	time.Sleep(1500 * time.Millisecond) // anything beyond wantTotal would show up now
	if got, _ = records.ReadFile(gwRecords); len(lines(got)) != wantTotal {
		t.Fatalf("gateway wrote %d records, want %d", len(lines(got)), wantTotal)
	}
	got = lines(got)

	// Records in = records out: each body is one input record, once.
	want := map[string]int{}
	for _, r := range jobRecords {
		want["job/"+r.Host+"\x00"+r.Text]++
	}
	for _, r := range podRecords {
		want["pod/trainer-0\x00"+r.Text]++
	}
	codes := map[string][]string{}
	for _, r := range got {
		src := "job/" + r.ResourceStr("service.name")
		if pod := r.ResourceStr("k8s.pod.name"); pod != "" {
			src = "pod/" + pod
			if ns, c := r.ResourceStr("k8s.namespace.name"), r.ResourceStr("k8s.container.name"); ns != "ml" || c != "jax" {
				t.Errorf("container record has namespace %q, container %q", ns, c)
			}
		}
		if h := r.ResourceStr("host.name"); h != "node-7" {
			t.Errorf("record from %s has host.name %q", src, h)
		}
		k := src + "\x00" + r.Body
		if want[k] == 0 {
			t.Errorf("gateway record from %s is not an input record (or a duplicate):\n%s", src, r.Body)
			continue
		}
		want[k]--
		if c := r.Str("xla.error.code"); c != "" {
			codes[src] = append(codes[src], c)
		}
	}
	wantOOM := float64(demo.ExpectedTotal() + len(demo.Expected["tpu-train-w0"]))
	wantCodes := map[string][]string{"pod/trainer-0": demo.Expected["tpu-train-w0"]}
	for host, c := range demo.Expected {
		wantCodes["job/"+host] = c
	}
	for _, m := range []map[string][]string{codes, wantCodes} {
		for k := range m {
			m[k] = append([]string(nil), m[k]...)
			sort.Strings(m[k])
		}
	}
	if fmt.Sprint(codes) != fmt.Sprint(wantCodes) {
		t.Errorf("tagged codes by source:\n got %v\nwant %v", codes, wantCodes)
	}

	t.Logf("gateway wrote %d records (%d job, %d container); %d tagged", len(got), len(jobRecords), len(podRecords), int(wantOOM))

	// The agent did the tagging (the gateway's processor leaves tagged records alone).
	tel, err := promtext.Scrape("http://127.0.0.1:"+agentTelemetry+"/metrics", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var tagged float64
	for _, s := range tel {
		if strings.HasPrefix(s.Name, "otelcol_processor_xla_oom_records_tagged") {
			tagged += s.Value
		}
	}
	if tagged != wantOOM {
		t.Errorf("agent tagged %v records, want %v", tagged, wantOOM)
	}

	// The gateway's metrics.
	eventually(t, 30*time.Second, func() string {
		m, err := promtext.Scrape("http://"+gwProm+"/metrics", 5*time.Second)
		if err != nil {
			return err.Error()
		}
		if v := promtext.Sum(m, "xla_oom_errors_total", map[string]string{"host_name": "node-7"}); v != wantOOM {
			return fmt.Sprintf("xla_oom_errors_total{host_name=node-7} = %v, want %v", v, wantOOM)
		}
		if v := promtext.Sum(m, "xla_oom_errors_total", map[string]string{"k8s_pod_name": "trainer-0", "xla_error_code": "E1000"}); v != 2 {
			return fmt.Sprintf("xla_oom_errors_total{k8s_pod_name=trainer-0,xla_error_code=E1000} = %v, want 2", v)
		}
		if len(promtext.Filter(m, "xla_oom_pressure_ratio")) == 0 || len(promtext.Filter(m, "xla_oom_requested_size_bytes_count")) == 0 {
			return "no xla_oom_pressure_ratio or xla_oom_requested_size_bytes series"
		}
		return ""
	})
}

// lines are the records read from inputs, without the processor's failure
// records.
func lines(recs []records.Record) []records.Record {
	l, _ := records.Split(recs)
	return l
}
