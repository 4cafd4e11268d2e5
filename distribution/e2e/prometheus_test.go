// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
)

// prometheusServer is one Prometheus binary the alerting tests run against.
type prometheusServer struct {
	name, bin string
}

// prometheusServers returns every Prometheus to test with: the paths in
// $XLAOOM_E2E_PROMETHEUS (separated like PATH) when set, else the
// `prometheus` on PATH (Debian's 2.x) and Prometheus 3 from
// scripts/install-prometheus3.sh (out/tools/prometheus3) when installed.
func prometheusServers(t *testing.T) []prometheusServer {
	t.Helper()
	var bins []string
	if env := os.Getenv("XLAOOM_E2E_PROMETHEUS"); env != "" {
		bins = filepath.SplitList(env)
	} else {
		if p, err := exec.LookPath("prometheus"); err == nil {
			bins = append(bins, p)
		}
		if p, err := filepath.Abs(filepath.Join(distDir, "..", "out", "tools", "prometheus3", "prometheus")); err == nil {
			if _, err := os.Stat(p); err == nil {
				bins = append(bins, p)
			}
		}
	}
	if len(bins) == 0 {
		t.Skip("no Prometheus: apt-get install -y prometheus (Debian/Ubuntu), or make install-prometheus3 (scripts/install-prometheus3.sh, Go only); .ci/run does")
	}
	var out []prometheusServer
	for _, b := range bins {
		out = append(out, prometheusServer{name: prometheusVersion(b), bin: b})
	}
	return out
}

// prometheusVersion names a binary by its version ("2.42.0+ds"), or by its
// directory when it has none (a `go install` build prints an empty one).
func prometheusVersion(bin string) string {
	out, _ := exec.Command(bin, "--version").Output()
	if f := strings.Fields(string(out)); len(f) > 2 && f[1] == "version" && f[2] != "(branch:" {
		return "v" + f[2]
	}
	return filepath.Base(filepath.Dir(bin))
}

// testWindows shortens the windows of the shipped rules for the tests:
// 10m (a new incident) and 1h (a crash loop).
var testWindows = []struct{ from, to string }{
	{"[10m]", "[15s]"}, {"offset 10m", "offset 15s"},
	{"[1h]", "[45s]"}, {"offset 1h", "offset 45s"},
}

// testRules returns examples/prometheus/alerts.yaml with testWindows applied;
// it fails if a window is no longer in the rules, so that a change to them
// cannot leave the tests on production windows.
func testRules(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(examplesDir, "prometheus", "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, w := range testWindows {
		if !strings.Contains(s, w.from) {
			t.Fatalf("alerts.yaml has no %q any more: update testWindows", w.from)
		}
		s = strings.ReplaceAll(s, w.from, w.to)
	}
	return []byte(s)
}

// ruleFile is a rule file startPrometheus loads besides the test rules.
type ruleFile struct {
	name    string
	content []byte
}

type prometheus struct {
	base string
	log  string // path of its log
}

type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  string
}

// startPrometheus runs bin with the test rules, evaluating every second. It
// scrapes target every second when target is not empty; remoteWrite turns on
// its remote-write receiver. extraRules are more rule files to load (name ->
// content), e.g. the early-warning rules.
func startPrometheus(t *testing.T, bin, dir, target string, remoteWrite bool, extraRules ...ruleFile) *prometheus {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rulesPath := filepath.Join(dir, "alerts.yaml")
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(rulesPath, testRules(t), 0o644); err != nil {
		t.Fatal(err)
	}
	rulePaths := fmt.Sprintf("%q", rulesPath)
	for _, r := range extraRules {
		path := filepath.Join(dir, r.name)
		if err := os.WriteFile(path, r.content, 0o644); err != nil {
			t.Fatal(err)
		}
		rulePaths += fmt.Sprintf(", %q", path)
	}
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nrule_files: [%s]\n", rulePaths)
	if target != "" {
		cfg += fmt.Sprintf("scrape_configs:\n  - job_name: otelcol-xlaoom\n    static_configs:\n      - targets: [%q]\n", target)
	}
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	proc, ports := startProcess(t, "prometheus-"+filepath.Base(dir), collector.Command{
		Binary: bin,
		Args: func(p *collector.Ports) []string {
			args := []string{"--config.file=" + cfgPath, "--storage.tsdb.path=" + filepath.Join(dir, "tsdb"),
				"--web.listen-address=" + p.Addr("web"), "--log.level=warn", "--storage.tsdb.retention.time=1h"}
			if remoteWrite {
				args = append(args, "--web.enable-remote-write-receiver")
			}
			return args
		},
		Ready:   []string{"web"},
		Timeout: 60 * time.Second,
	})
	p := &prometheus{base: "http://" + ports.Addr("web"), log: proc.Log}
	eventually(t, 60*time.Second, func() string {
		resp, err := http.Get(p.base + "/-/ready")
		if err != nil {
			return "Prometheus not ready: " + err.Error()
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "Prometheus not ready: " + resp.Status
		}
		return ""
	})
	return p
}

func (p *prometheus) get(path string, v any) error {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(p.base + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return err
	}
	if env.Status != "success" {
		return fmt.Errorf("%s: %s", path, env.Error)
	}
	return json.Unmarshal(env.Data, v)
}

// query runs an instant query and returns the vector.
func (p *prometheus) query(q string) ([]promSample, error) {
	var data struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	if err := p.get("/api/v1/query?query="+url.QueryEscape(q), &data); err != nil {
		return nil, err
	}
	out := make([]promSample, 0, len(data.Result))
	for _, r := range data.Result {
		v, _ := r.Value[1].(string)
		out = append(out, promSample{Metric: r.Metric, Value: v})
	}
	return out, nil
}

// promAlert is an alert as /api/v1/alerts lists it.
type promAlert struct {
	Labels map[string]string `json:"labels"`
	State  string            `json:"state"`
}

func (p *prometheus) alerts() ([]promAlert, error) {
	var data struct {
		Alerts []promAlert `json:"alerts"`
	}
	err := p.get("/api/v1/alerts", &data)
	return data.Alerts, err
}

// selfMetric returns the sum of the samples of Prometheus's own metric name
// whose labels contain every one of match ("code=\"400\""), read from its
// /metrics endpoint.
func (p *prometheus) selfMetric(name string, match ...string) (float64, error) {
	resp, err := http.Get(p.base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for _, m := range match {
			ok = ok && strings.Contains(line, m)
		}
		if f := strings.Fields(line); ok && len(f) >= 2 {
			var v float64
			fmt.Sscan(f[len(f)-1], &v)
			sum += v
		}
	}
	return sum, sc.Err()
}
