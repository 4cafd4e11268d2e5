// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
)

// TestWarningThenOOMTicketThenPage runs the early-warning path in a real
// Prometheus: a job logs memory-pressure warnings (rematerialization shortfall,
// BFC allocator retry) and later fails with an OOM. The warnings open the
// ticket (XlaMemoryWarningsRising, severity ticket, examples/prometheus/warnings.yaml)
// while no page fires; the OOM then fires the page (XlaOomIncident, severity
// page, alerts.yaml), which Prometheus reports active later than the ticket.
func TestWarningThenOOMTicketThenPage(t *testing.T) {
	for _, server := range prometheusServers(t) {
		t.Run(server.name, func(t *testing.T) { runWarningThenOOM(t, server.bin) })
	}
}

func runWarningThenOOM(t *testing.T, promBin string) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	gpu := filepath.Join(logs, "gpu-c", "train.log")
	appendFile(t, gpu, "I0912 07:00:09.402118   27487 train.py:96] Model vit: 2.71B params per device\n")

	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, ports := startCollector(t, "collector", filepath.Join(demoDir, "config.yaml"), func(p *collector.Ports) []string {
		return []string{
			"XLAOOM_LOGS=" + filepath.Join(logs, "*", "*.log"),
			"XLAOOM_OUT=" + filepath.Join(dir, "out"),
			"XLAOOM_PROMETHEUS=" + p.Addr("prom"),
		}
	}, "prom")
	exporter := ports.Addr("prom")
	warnings, err := os.ReadFile(filepath.Join(examplesDir, "prometheus", "warnings.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	prom := startPrometheus(t, promBin, filepath.Join(dir, "prometheus"), exporter, false, ruleFile{"warnings.yaml", warnings})
	eventually(t, 30*time.Second, func() string {
		r, err := prom.query(`up{job="otelcol-xlaoom"}`)
		if err != nil || len(r) != 1 || r[0].Value != "1" {
			return fmt.Sprintf("Prometheus does not scrape the collector yet: %v %v", r, err)
		}
		return ""
	})

	// Phase 1: warnings, no failure.
	appendFile(t, gpu, "W0912 07:00:31.224101   27487 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 58.44GiB (62750982717 bytes), down from 61.02GiB (65520000000 bytes) originally\n"+
		"I0912 07:01:44.001291   27487 train.py:201] step=400 loss=3.0172\n"+
		"2025-09-12 07:02:43.112233: W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.19GiB with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.\n"+
		"I0912 07:02:43.501887   27487 train.py:201] step=410 loss=3.0101\n")
	ticket := prom.waitAlertAt(t, "XlaMemoryWarningsRising", 2, func(l map[string]string) bool {
		return l["service_name"] == "train" && l["severity"] == "ticket"
	})
	if page := prom.alertsAt(t, "XlaOomIncident"); len(page) != 0 {
		t.Fatalf("a page fired on warnings alone: %v", page)
	}
	r, err := prom.query(`sum(xla_oom_errors_total)`)
	if err != nil || len(r) != 0 {
		t.Errorf("xla_oom_errors_total exists after warnings only: %v %v", r, err)
	}
	r, err = prom.query(`xla_memory_warning_pressure_ratio{service_name="train",xla_memory_warning="rematerialization"}`)
	if err != nil || len(r) != 1 {
		t.Fatalf("warning pressure series: %v %v", r, err)
	}
	if v, _ := strconv.ParseFloat(r[0].Value, 64); v < 1.03 || v > 1.04 {
		t.Errorf("rematerialization pressure = %v, want 62750982717/60574761232 = 1.036", v)
	}
	if _, ok := r[0].Metric["host_name"]; ok {
		t.Errorf("warning series carry host_name (want the job resource): %v", r[0].Metric)
	}
	checkWarningPanel(t, prom)

	// Phase 2: the job fails.
	appendFile(t, gpu, "E0912 07:02:44.350251   27487 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes.\n"+
		"I0912 07:02:45.000112   27487 train.py:230] Restarting from step 400\n")
	page := prom.waitAlertAt(t, "XlaOomIncident", 1, func(l map[string]string) bool {
		return l["service_name"] == "train" && l["xla_error_code"] == "E0007" && l["severity"] == "page"
	})
	if !ticket[0].ActiveAt.Before(page[0].ActiveAt) {
		t.Errorf("ticket active at %v, page at %v: the warning must come first", ticket[0].ActiveAt, page[0].ActiveAt)
	}
	r, err = prom.query(`sum by (service_name) (xla_memory_warnings_total)`)
	if err != nil || len(r) != 1 || r[0].Value != "2" {
		t.Errorf("xla_memory_warnings_total by job = %v, %v; want train=2 (the OOM is not a warning)", r, err)
	}
}

// alertAt is an alert of Prometheus's /api/v1/alerts with the time it
// became active.
type alertAt struct {
	Labels   map[string]string `json:"labels"`
	State    string            `json:"state"`
	ActiveAt time.Time         `json:"activeAt"`
}

// alertsAt returns the alerts named name, in any state.
func (p *prometheus) alertsAt(t *testing.T, name string) []alertAt {
	t.Helper()
	var data struct {
		Alerts []alertAt `json:"alerts"`
	}
	if err := p.get("/api/v1/alerts", &data); err != nil {
		t.Fatal(err)
	}
	var out []alertAt
	for _, a := range data.Alerts {
		if a.Labels["alertname"] == name {
			out = append(out, a)
		}
	}
	return out
}

// waitAlertAt waits until exactly n alerts named name whose labels match are
// firing, and returns them.
func (p *prometheus) waitAlertAt(t *testing.T, name string, n int, match func(map[string]string) bool) []alertAt {
	t.Helper()
	var got []alertAt
	eventually(t, 60*time.Second, func() string {
		got = got[:0]
		for _, a := range p.alertsAt(t, name) {
			if a.State == "firing" && match(a.Labels) {
				got = append(got, a)
			}
		}
		if len(got) != n {
			return fmt.Sprintf("%d %s alerts firing, want %d: %v", len(got), name, n, p.alertsAt(t, name))
		}
		return ""
	})
	return got
}

// TestWarningRulesPromtool checks the early-warning rules and runs their unit
// tests (examples/prometheus/warnings_test.yaml) with promtool.
func TestWarningRulesPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed: apt-get install -y prometheus (Debian/Ubuntu), or make install-prometheus3 (scripts/install-prometheus3.sh, Go only); .ci/run installs it")
	}
	for _, args := range [][]string{{"check", "rules", "warnings.yaml"}, {"test", "rules", "warnings_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = filepath.Join(examplesDir, "prometheus")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool %v: %v\n%s", args, err, out)
		}
	}
}

// checkWarningPanel runs the queries of the dashboard's early-warning panel
// (examples/grafana/xla-oom-dashboard.json) against the live Prometheus: each
// must return the job's series within a few scrapes.
func checkWarningPanel(t *testing.T, prom *prometheus) {
	t.Helper()
	n := 0
	for title, queries := range dashboardQueries(t) {
		if !strings.HasPrefix(title, "Memory warnings") {
			continue
		}
		for _, q := range queries {
			n++
			// increase() needs two scrapes of the new series
			eventually(t, 30*time.Second, func() string {
				r, err := prom.query(q)
				if err != nil || len(r) == 0 || r[0].Metric["service_name"] != "train" {
					return fmt.Sprintf("panel %q query %s = %v, %v", title, q, r, err)
				}
				return ""
			})
		}
	}
	if n == 0 {
		t.Error("the dashboard has no early-warning panel")
	}
}

// TestWarningRunbookAnchor: the ticket's runbook_url points at a heading of
// docs/runbook.md (GitHub's anchor: lower case, spaces to hyphens, other
// punctuation dropped).
func TestWarningRunbookAnchor(t *testing.T) {
	checkRunbookAnchors(t, "warnings.yaml")
}

// TestAlertRunbookAnchors: so do the pages' fixed runbook_urls (the
// incident's, which names the code, is templated).
func TestAlertRunbookAnchors(t *testing.T) {
	checkRunbookAnchors(t, "alerts.yaml")
}

func checkRunbookAnchors(t *testing.T, ruleFile string) {
	t.Helper()
	rules, err := os.ReadFile(filepath.Join(examplesDir, "prometheus", ruleFile))
	if err != nil {
		t.Fatal(err)
	}
	runbook, err := os.ReadFile(filepath.Join(examplesDir, "..", "docs", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, line := range strings.Split(string(runbook), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			var b strings.Builder
			for _, r := range strings.ToLower(h) {
				switch {
				case r == ' ':
					b.WriteByte('-')
				case r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
					b.WriteRune(r)
				}
			}
			anchors[b.String()] = true
		}
	}
	parts := strings.Split(string(rules), "docs/runbook.md#")
	if len(parts) < 2 {
		t.Fatalf("%s has no runbook_url", ruleFile)
	}
	for _, after := range parts[1:] {
		anchor, _, _ := strings.Cut(after, `"`)
		if !strings.Contains(anchor, "{{") && !anchors[anchor] {
			t.Errorf("%s: runbook_url anchor %q is not a heading of docs/runbook.md (%v)", ruleFile, anchor, anchors)
		}
	}
}
