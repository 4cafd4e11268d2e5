// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// TestSoak pushes XLAOOM_SOAK_LINES log lines (default 20,000; the hardening
// run uses 1,000,000) with one OOM in 50 through file_log -> xla_oom -> file
// exporter in the built collector, and checks that every line comes out,
// every OOM is tagged with its exact size, no other line carries an xla.*
// attribute or a changed body, and the RSS stays flat (sampled every 250 ms
// from /proc/<pid>/status).
func TestSoak(t *testing.T) {
	n := 20000
	if s := os.Getenv("XLAOOM_SOAK_LINES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			t.Fatalf("XLAOOM_SOAK_LINES=%q", s)
		}
		n = v
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.log"), filepath.Join(dir, "out.json")
	line := func(i int) string {
		if i%50 == 7 {
			return fmt.Sprintf("E1122 12:00:00.%06d 1 pjrt.cc:1] RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes.", i%1000000, int64(i+1)*1024)
		}
		return fmt.Sprintf("I1122 12:00:00.%06d 1 train.py:1] step=%d loss=%d.%03d tokens/s=%d", i%1000000, i, i%7, i%1000, 1000+i%313)
	}
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	ooms := 0
	for i := range n {
		if i%50 == 7 {
			ooms++
		}
		w.WriteString(line(i))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg := filepath.Join(dir, "soak.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`receivers:
  file_log:
    include: [%q]
    start_at: beginning
processors:
  xla_oom:
exporters:
  file:
    path: %q
service:
`+quietTelemetry+`  pipelines:
    logs:
      receivers: [file_log]
      processors: [xla_oom]
      exporters: [file]
`, in, out)), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p, _ := startCollector(t, "soak", cfg, fixedEnv("XLAOOM_LOG_LEVEL=warn"))
	pid := findPid(t, cfg)

	var mu sync.Mutex
	var rss []int64 // kB, every 250 ms
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(250 * time.Millisecond)
		defer tk.Stop()
		for {
			if kb := vmRSS(pid); kb > 0 {
				mu.Lock()
				rss = append(rss, kb)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	}()

	timeout := 2*time.Minute + time.Duration(n/2000)*time.Second
	var seen map[int]bool
	eventually(t, timeout, func() string {
		if exited, err := p.Exited(); exited {
			return fmt.Sprintf("collector exited: %v", err)
		}
		var why string
		seen, why = checkSoakOutput(out, line)
		if why != "" {
			t.Fatal(why)
		}
		if len(seen) < n {
			return fmt.Sprintf("%d of %d lines out", len(seen), n)
		}
		return ""
	})
	dur := time.Since(start)
	close(stop)
	<-done
	if len(seen) != n {
		t.Fatalf("%d lines out, want %d", len(seen), n)
	}
	mu.Lock()
	defer mu.Unlock()
	var peak int64
	for _, v := range rss {
		peak = max(peak, v)
	}
	at := func(frac float64) int64 {
		if len(rss) == 0 {
			return 0
		}
		return rss[min(len(rss)-1, int(frac*float64(len(rss))))]
	}
	t.Logf("soak: %d lines, %d OOMs, %s, %d RSS samples, peak %d MiB, RSS at 25%%/50%%/75%%/100%%: %d/%d/%d/%d MiB",
		n, ooms, dur.Round(time.Millisecond), len(rss), peak/1024, at(0.25)/1024, at(0.5)/1024, at(0.75)/1024, at(1)/1024)
	// Flat memory: the end of the run holds no more than 1.5x the first quarter plus 64 MiB.
	if len(rss) >= 8 && at(1) > at(0.25)*3/2+64*1024 {
		t.Errorf("RSS grew: %d kB at 25%%, %d kB at the end", at(0.25), at(1))
	}
}

// checkSoakOutput reads the file exporter's output and returns the line
// indexes seen; it reports any record that is wrong.
func checkSoakOutput(path string, line func(int) string) (map[int]bool, string) {
	seen := map[int]bool{}
	var why string
	var um plog.JSONUnmarshaler
	// An error ends the reading: a line that does not decode is the partly
	// written last one (read again at the next call), or why says what is wrong.
	_ = records.EachLine(path, func(_ int, b []byte) error {
		ld, err := um.UnmarshalLogs(b)
		if err != nil {
			return err
		}
		for _, rl := range ld.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					if why = checkSoakRecord(lr, line, seen); why != "" {
						return errors.New(why)
					}
				}
			}
		}
		return nil
	})
	return seen, why
}

// checkSoakRecord checks one exported record against the input line it
// stands for and marks that line seen; it returns what is wrong, or "".
func checkSoakRecord(lr plog.LogRecord, line func(int) string, seen map[int]bool) string {
	body := lr.Body().Str()
	var i int
	if k := strings.Index(body, "step="); k >= 0 {
		fmt.Sscanf(body[k:], "step=%d", &i)
	} else if k := strings.Index(body, "allocate "); k >= 0 {
		var b int64
		fmt.Sscanf(body[k:], "allocate %d", &b)
		i = int(b/1024) - 1
	}
	if body != line(i) {
		return fmt.Sprintf("body changed or unknown: %q", body)
	}
	if seen[i] {
		return fmt.Sprintf("line %d out twice", i)
	}
	seen[i] = true
	code, tagged := lr.Attributes().Get("xla.error.code")
	isOOM := i%50 == 7
	if isOOM != tagged {
		return fmt.Sprintf("line %d: OOM %v, tagged %v (%v)", i, isOOM, tagged, lr.Attributes().AsRaw())
	}
	if isOOM {
		req, _ := lr.Attributes().Get("xla.oom.requested.size")
		if code.Str() == "" || req.Int() != int64(i+1)*1024 {
			return fmt.Sprintf("line %d: tags %v", i, lr.Attributes().AsRaw())
		}
	} else {
		for k := range lr.Attributes().All() {
			if strings.HasPrefix(k, "xla.") {
				return fmt.Sprintf("line %d: ordinary line carries %s", i, k)
			}
		}
	}
	return ""
}

// findPid finds the collector running on config in /proc.
func findPid(t *testing.T, config string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, d := range dirs {
			b, err := os.ReadFile(d)
			if err == nil && strings.Contains(string(b), config) && strings.Contains(string(b), "otelcol") {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
				return pid
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Log("collector pid not found: RSS not sampled")
	return -1
}

// vmRSS returns VmRSS of pid in kB, or 0.
func vmRSS(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			v, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return v
		}
	}
	return 0
}

// TestValidateNamesTheField: `otelcol-xlaoom validate` rejects bad settings
// of the processor and the connector, and its output names the field.
func TestValidateNamesTheField(t *testing.T) {
	cases := []struct{ proc, conn, field string }{
		{"{max_scan_size: 0}", "{}", "max_scan_size"},
		{"{top_allocations: 1000}", "{}", "top_allocations"},
		{"{incident_window: -1s}", "{}", "incident_window"},
		{"{}", "{series_limit: 0}", "series_limit"},
		{"{}", "{aggregation_temporality: sometimes}", "aggregation_temporality"},
		{"{}", "{buckets: [2, 1]}", "buckets[1]"},
		{"{}", "{dimensions: [host.name]}", "dimensions[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.yaml")
			appendFile(t, bad, "receivers: {otlp: {protocols: {grpc: {endpoint: 127.0.0.1:0}}}}\n"+
				"processors: {xla_oom: "+tc.proc+"}\nconnectors: {xla_oom: "+tc.conn+"}\nexporters: {debug: {}}\n"+
				"service: {telemetry: {metrics: {level: none}}, pipelines: {logs: {receivers: [otlp], processors: [xla_oom], exporters: [xla_oom]},"+
				" metrics: {receivers: [xla_oom], exporters: [debug]}}}\n")
			out, err := exec.Command(collectorBin, "validate", "--config", bad).CombinedOutput()
			if err == nil {
				t.Fatalf("validate accepted %s / %s\n%s", tc.proc, tc.conn, out)
			}
			if !strings.Contains(string(out), tc.field) {
				t.Errorf("validate output does not name %s:\n%s", tc.field, out)
			}
		})
	}
}
