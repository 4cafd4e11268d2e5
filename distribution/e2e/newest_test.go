// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// TestNewestCollectorPipeline runs one pipeline through the smaller collector
// that scripts/compat.sh builds at the newest collector release with that
// release's builder: OTLP/HTTP logs in -> xla_oom processor -> xla_oom
// connector -> metrics (and the tagged logs) out over OTLP/HTTP to a receiver
// in this test. health_check and file_storage (the export queue's storage) are
// in the pipeline too. Skipped unless XLAOOM_NEWEST_COLLECTOR names that binary
// (make compat / make test set it).
func TestNewestCollectorPipeline(t *testing.T) {
	bin := os.Getenv("XLAOOM_NEWEST_COLLECTOR")
	if bin == "" {
		t.Skip("XLAOOM_NEWEST_COLLECTOR not set: run scripts/compat.sh (make compat), which builds the newest collector and runs this test")
	}
	dir := t.TempDir()
	sink := newOTLPSink(t)
	config := func(in, health string) string {
		return fmt.Sprintf(`
extensions:
  health_check:
    endpoint: %s
  file_storage:
    directory: %s
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
processors:
  xla_oom: {}
connectors:
  xla_oom:
    emit_interval: 1s
exporters:
  otlp_http:
    endpoint: http://%s
    compression: none
    sending_queue:
      enabled: true
      storage: file_storage
service:
  extensions: [health_check, file_storage]
`+quietTelemetry+`  pipelines:
    logs:
      receivers: [otlp]
      processors: [xla_oom]
      exporters: [otlp_http, xla_oom]
    metrics:
      receivers: [xla_oom]
      exporters: [otlp_http]
`, health, dir, in, sink.addr)
	}
	// The config names the ports: each start attempt writes its own.
	attempt := 0
	_, ports := startProcess(t, "newest-collector", collector.Command{
		Binary: bin,
		Args: func(p *collector.Ports) []string {
			attempt++
			path := filepath.Join(dir, fmt.Sprintf("newest-%d.yaml", attempt))
			appendFile(t, path, config(p.Addr("in"), p.Addr("health")))
			return []string{"--config", path}
		},
		Ready:   []string{"in", "health"},
		Timeout: 60 * time.Second,
	})
	in, health := ports.Addr("in"), ports.Addr("health")
	if v, err := exec.Command(bin, "--version").Output(); err == nil {
		t.Logf("collector: %s (release %s)", bytes.TrimSpace(v), os.Getenv("XLAOOM_NEWEST_VERSION"))
	}

	// Two XLA OOMs and a look-alike, as an SDK would send them.
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "trainer")
	rl.Resource().Attributes().PutStr("host.name", "tpu-newest-0")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for _, body := range []string{
		"RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00G. That was not possible. There are 6.43G free.; (0x0x1_HBM0)",
		"RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes.",
		"RESOURCE_EXHAUSTED: grpc: received message larger than max (8388608 vs. 4194304)",
	} {
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
		lr.Body().SetStr(body)
	}
	body, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+in+"/v1/logs", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/logs: HTTP %d", resp.StatusCode)
	}

	eventually(t, 60*time.Second, func() string {
		got := sink.logs()
		if len(got) != 3 {
			return fmt.Sprintf("%d log records out, want 3", len(got))
		}
		codes := map[string]int{}
		for _, r := range got {
			codes[r.Str("xla.error.code")]++
		}
		if codes["E0100"] != 1 || codes["E0007"] != 1 || codes[""] != 1 {
			return fmt.Sprintf("tags %v, want one E0100, one E0007, one untagged", codes)
		}
		if v := sink.errorsTotal(); v != 2 {
			return fmt.Sprintf("xla.oom.errors = %v, want 2", v)
		}
		return ""
	})
	r, err := http.Get("http://" + health + "/")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Errorf("health_check: HTTP %d", r.StatusCode)
	}
}

// otlpSink is an OTLP/HTTP (protobuf) receiver for logs and metrics.
type otlpSink struct {
	addr    string
	mu      sync.Mutex
	records []records.Record
	errors  map[string]float64 // latest xla.oom.errors value per series
}

func newOTLPSink(t *testing.T) *otlpSink {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &otlpSink{addr: l.Addr().String(), errors: map[string]float64{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/logs", handleExport(s, plogotlp.NewExportRequest, func(req plogotlp.ExportRequest) {
		s.records = append(s.records, records.Flatten(req.Logs())...)
	}))
	mux.HandleFunc("/v1/metrics", handleExport(s, pmetricotlp.NewExportRequest, func(req pmetricotlp.ExportRequest) {
		s.addMetrics(req.Metrics())
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// handleExport answers OTLP/HTTP export requests of one signal: the
// protobuf body is decoded into a new request and handed to keep under the
// sink's lock; a body that does not decode is answered 400.
func handleExport[R interface{ UnmarshalProto([]byte) error }](s *otlpSink, newRequest func() R, keep func(R)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req := newRequest()
		if err := req.UnmarshalProto(b); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		keep(req)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}
}

// addMetrics keeps the latest value of every xla.oom.errors series (cumulative sums).
func (s *otlpSink) addMetrics(md pmetric.Metrics) {
	for _, rm := range md.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				if m.Name() != "xla.oom.errors" || m.Type() != pmetric.MetricTypeSum {
					continue
				}
				for _, dp := range m.Sum().DataPoints().All() {
					key := fmt.Sprint(rm.Resource().Attributes().AsRaw(), dp.Attributes().AsRaw())
					v := dp.DoubleValue()
					if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
						v = float64(dp.IntValue())
					}
					s.errors[key] = v
				}
			}
		}
	}
}

func (s *otlpSink) logs() []records.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]records.Record(nil), s.records...)
}

func (s *otlpSink) errorsTotal() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sum float64
	for _, v := range s.errors {
		sum += v
	}
	return sum
}
