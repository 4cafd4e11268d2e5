package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPrometheusAlerting runs a real Prometheus against the collector: OOM
// records are appended to log files while both run, Prometheus scrapes the
// prometheus exporter every second and evaluates examples/prometheus/alerts.yaml
// (with `for:` shortened), and the test reads the counts and the alerts back
// through Prometheus's HTTP API.
func TestPrometheusAlerting(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed (Debian: apt-get install -y prometheus); .ci/run installs it")
	}
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	tpu := filepath.Join(logs, "tpu-a", "train.log")
	gpu := filepath.Join(logs, "gpu-b", "train.log")
	appendFile(t, tpu, "I0912 06:58:05.118224    4412 train.py:118] Process 0/2 on tpu-a: 4 local devices, 8 global devices\n")
	appendFile(t, gpu, "I0912 07:00:09.402118   27487 train.py:96] Model vit: 2.71B params per device\n")

	exporter := freeAddr(t)
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	startCollector(t, "collector", filepath.Join(demoDir, "config.yaml"), []string{
		"XLAOOM_LOGS=" + filepath.Join(logs, "*", "*.log"),
		"XLAOOM_OUT=" + filepath.Join(dir, "out"),
		"XLAOOM_PROMETHEUS=" + exporter,
	}, exporter)

	prom := startPrometheus(t, promBin, dir, exporter)

	eventually(t, 30*time.Second, func() string {
		r, err := prom.query(`up{job="otelcol-xlaoom"}`)
		if err != nil || len(r) != 1 || r[0].Value != "1" {
			return fmt.Sprintf("Prometheus does not scrape the collector yet: %v %v", r, err)
		}
		return ""
	})

	// Phase 1: the first failures of each host and code create their series.
	hbm := func(used, exceeded string) string {
		return "E0912 07:01:12.118224    4412 train.py:244] Compilation of jit_train_step failed\n" +
			"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used " +
			used + " of 95.74G hbm. Exceeded hbm capacity by " + exceeded + ".\n"
	}
	appendFile(t, tpu, hbm("118.42G", "22.68G")+
		"W0912 07:05:44.551312    4412 gcs_uploader.cc:412] RPC failed: RESOURCE_EXHAUSTED: grpc: received message larger than max (8388608 vs. 4194304)\n"+
		hbm("101.02G", "5.28G")+hbm("99.00G", "3.26G")+
		"E0912 07:09:13.044581    4412 train.py:330] Failed to stage the next batch on device\n"+
		"ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00G. That was not possible. There are 6.43G free.; (0x0x1_HBM0)\n"+
		"I0912 07:09:13.201877    4412 train.py:339] Dropping prefetch depth from 2 to 1\n")
	appendFile(t, gpu, "2025-09-12 07:02:43.112233: W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.19GiB with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.\n"+
		"E0912 07:02:44.350251   27487 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes.\n"+
		"BufferAssignment OOM Debugging.\nBufferAssignment stats:\n             parameter allocation:   10.04GiB\n                 total allocation:   58.44GiB\n"+
		"I0912 07:02:45.000112   27487 train.py:230] Restarting from step 400\n")

	prom.waitCounts(t, map[string]float64{"tpu-a/E1000": 3, "tpu-a/E0100": 1, "gpu-b/E0007": 1})
	prom.waitAlerts(t, "XlaOomErrors", "firing", "tpu-a/E1000", "tpu-a/E0100", "gpu-b/E0007")
	// The GPU message prints no free memory, so it has no pressure series.
	states := prom.waitAlerts(t, "XlaOomMemoryPressure", "firing", "tpu-a/E1000", "tpu-a/E0100")
	t.Logf("XlaOomMemoryPressure states seen for tpu-a/E1000: %v", states["tpu-a/E1000"])
	if s := states["tpu-a/E1000"]; len(s) == 0 || s[0] != "pending" {
		t.Errorf("XlaOomMemoryPressure was not pending before firing (for: 4s): %v", s)
	}

	// Phase 2: more failures on a known series fire through increase().
	appendFile(t, tpu, hbm("120.00G", "24.26G")+hbm("121.00G", "25.26G")+
		"I0912 07:10:40.512003    4412 train.py:301] step=12050 loss=2.1688\n")
	prom.waitCounts(t, map[string]float64{"tpu-a/E1000": 5, "tpu-a/E0100": 1, "gpu-b/E0007": 1})
	prom.waitAlerts(t, "XlaOomErrors", "firing", "tpu-a/E1000", "tpu-a/E0100", "gpu-b/E0007")
	r, err := prom.query(`sum by (host_name, xla_error_code) (increase(xla_oom_errors_total{host_name="tpu-a",xla_error_code="E1000"}[5m]))`)
	if err != nil || len(r) != 1 || r[0].Value == "0" {
		t.Errorf("increase() of the E1000 series after phase 2: %v %v", r, err)
	}
}

type prometheus struct {
	base string
}

type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  string
}

// startPrometheus runs Prometheus on target with the shipped rule files of
// examples/prometheus (alerts.yaml when none are named).
func startPrometheus(t *testing.T, bin, dir, target string, ruleFiles ...string) *prometheus {
	t.Helper()
	if len(ruleFiles) == 0 {
		ruleFiles = []string{"alerts.yaml"}
	}
	// The shipped rules, with `for:` shortened to seconds.
	var rulePaths []string
	for _, name := range ruleFiles {
		rules, err := os.ReadFile(filepath.Join(examplesDir, "prometheus", name))
		if err != nil {
			t.Fatal(err)
		}
		rules = regexp.MustCompile(`for: \d+m`).ReplaceAll(rules, []byte("for: 4s"))
		rulesPath := filepath.Join(dir, name)
		if err := os.WriteFile(rulesPath, rules, 0o644); err != nil {
			t.Fatal(err)
		}
		rulePaths = append(rulePaths, strconv.Quote(rulesPath))
	}
	cfgPath := filepath.Join(dir, "prometheus.yml")
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: [%s]
scrape_configs:
  - job_name: otelcol-xlaoom
    static_configs:
      - targets: [%q]
`, strings.Join(rulePaths, ", "), target)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+addr, "--log.level=warn", "--storage.tsdb.retention.time=1h")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Logf("prometheus log:\n%s", b)
		}
	})
	p := &prometheus{base: "http://" + addr}
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

// waitCounts waits until xla_oom_errors_total, summed by host and code, is
// exactly want ("host/code" -> count): nothing missing, nothing extra.
func (p *prometheus) waitCounts(t *testing.T, want map[string]float64) {
	t.Helper()
	eventually(t, 60*time.Second, func() string {
		r, err := p.query(`sum by (host_name, xla_error_code) (xla_oom_errors_total)`)
		if err != nil {
			return err.Error()
		}
		got := map[string]float64{}
		for _, s := range r {
			var v float64
			fmt.Sscan(s.Value, &v)
			got[s.Metric["host_name"]+"/"+s.Metric["xla_error_code"]] = v
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Sprintf("xla_oom_errors_total by host/code = %v, want %v", got, want)
		}
		return ""
	})
}

// waitAlerts waits until alert is in state for exactly the given host/code
// pairs, and returns the states seen per pair on the way.
func (p *prometheus) waitAlerts(t *testing.T, alert, state string, want ...string) map[string][]string {
	t.Helper()
	sort.Strings(want)
	seen := map[string][]string{}
	eventually(t, 60*time.Second, func() string {
		var data struct {
			Alerts []struct {
				Labels map[string]string `json:"labels"`
				State  string            `json:"state"`
			} `json:"alerts"`
		}
		if err := p.get("/api/v1/alerts", &data); err != nil {
			return err.Error()
		}
		var got []string
		for _, a := range data.Alerts {
			if a.Labels["alertname"] != alert {
				continue
			}
			k := a.Labels["host_name"] + "/" + a.Labels["xla_error_code"]
			if s := seen[k]; len(s) == 0 || s[len(s)-1] != a.State {
				seen[k] = append(seen[k], a.State)
			}
			if a.State == state {
				got = append(got, k)
			}
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			return fmt.Sprintf("%s %s for %v, want %v", alert, state, got, want)
		}
		return ""
	})
	return seen
}
