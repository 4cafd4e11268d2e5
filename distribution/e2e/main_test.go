// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package e2e runs the built otelcol-xlaoom as a real process: the example
// configs, the demo, an agent forwarding to a gateway, an OpenTelemetry SDK
// client, and a real Prometheus evaluating the alert rules. Everything listens
// on 127.0.0.1, every wait is bounded, every process is stopped at the end.
//
// The collector binary is $OTELCOL_XLAOOM when set (make e2e builds it first);
// otherwise TestMain builds it once into a temporary directory. A relative
// $OTELCOL_XLAOOM is taken from the distribution directory.
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
)

var collectorBin string

// Paths from this package's directory.
const (
	distDir     = ".."
	examplesDir = "../../examples"
	demoDir     = "../demo"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if p := os.Getenv("OTELCOL_XLAOOM"); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(distDir, p) // relative to distribution/, where make runs
		}
		abs, err := filepath.Abs(p)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "OTELCOL_XLAOOM=%s: %v\n", p, err)
			return 1
		}
		collectorBin = abs
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "otelcol-xlaoom-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	collectorBin = filepath.Join(dir, "otelcol-xlaoom")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", collectorBin, "./cmd/otelcol-xlaoom")
	build.Dir = distDir
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build-dist: the image test reuses it
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building otelcol-xlaoom: %v\n%s", err, out)
		return 1
	}
	fmt.Fprintf(os.Stderr, "e2e: built otelcol-xlaoom in %.1fs (set OTELCOL_XLAOOM to reuse a build)\n", time.Since(start).Seconds())
	return m.Run()
}

// startCollector runs the collector on config with the environment env(ports)
// and stops it when the test ends. ready names the ports it must listen on
// before startCollector returns. A port taken by another process between its
// choice and the collector's bind starts it again on new ones (no port is
// reserved for it in the meantime: a collector cannot inherit a listener).
func startCollector(t *testing.T, name, config string, env func(*collector.Ports) []string, ready ...string) (*collector.Process, *collector.Ports) {
	t.Helper()
	return startProcess(t, name, collector.Command{
		Binary: collectorBin,
		Args:   func(*collector.Ports) []string { return []string{"--config", config} },
		Env:    env,
		Ready:  ready,
	})
}

// startProcess starts c (a collector or another server) on free ports, see
// startCollector, and stops it when the test ends.
func startProcess(t *testing.T, name string, c collector.Command) (*collector.Process, *collector.Ports) {
	t.Helper()
	c.Log = filepath.Join(t.TempDir(), name+".log")
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
	p, ports, err := collector.StartOnFreePorts(c)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := p.Stop(15 * time.Second); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", name, p.Tail(4000))
		}
	})
	return p, ports
}

// fixedEnv is the environment of a process that listens on no chosen port.
func fixedEnv(env ...string) func(*collector.Ports) []string {
	return func(*collector.Ports) []string { return env }
}

// eventually polls cond every interval until it returns "" (success) or
// timeout passes, then fails with cond's last explanation.
func eventually(t *testing.T, timeout time.Duration, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why := cond()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, why)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// appendFile appends text to path, creating it and its directory.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// quietTelemetry is the service telemetry of the configs the tests write:
// the collector logs warnings only, and serves no metrics of its own, so
// that nothing takes the default port 8888 and several collectors can run at
// once. It goes right under "service:".
const quietTelemetry = `  telemetry:
    logs:
      level: warn
    metrics:
      level: none
`

// telemetryEnv keeps the collector's own metrics endpoint and its health
// check off the shared default ports 8888 and 13133, so that several
// collectors can run at once.
func telemetryEnv(p *collector.Ports) []string {
	return []string{"XLAOOM_TELEMETRY_PORT=" + p.Port("telemetry"), "XLAOOM_LOG_LEVEL=warn", "XLAOOM_HEALTH_ENDPOINT=" + p.Addr("health")}
}
