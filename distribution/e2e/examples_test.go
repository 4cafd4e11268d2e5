// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestExamplesValidate runs `otelcol-xlaoom validate` on every shipped config
// (the examples, the demo's and the packages' single-machine config), with
// their defaults and with the demo's environment.
func TestExamplesValidate(t *testing.T) {
	configs, err := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	if err != nil || len(configs) < 3 {
		t.Fatalf("example configs: %v %v", configs, err)
	}
	configs = append(configs, filepath.Join(demoDir, "config.yaml"), filepath.Join(distDir, "packaging", "all-in-one.yaml"))
	for _, c := range configs {
		t.Run(filepath.Base(c), func(t *testing.T) {
			cmd := exec.Command(collectorBin, "validate", "--config", c)
			cmd.Env = append(cmd.Environ(), "XLAOOM_LOGS=/tmp/none/*.log", "XLAOOM_OUT="+t.TempDir(), "XLAOOM_PROMETHEUS=127.0.0.1:9464")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("validate %s: %v\n%s", c, err, out)
			}
		})
	}
}

// TestValidateRejectsABrokenConfig makes sure the test above can fail.
func TestValidateRejectsABrokenConfig(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	appendFile(t, bad, "receivers: {otlp: {protocols: {grpc: {}}}}\nprocessors: {xla_oom: {max_scan_size: -1}}\nexporters: {debug: {}}\n"+
		"service: {pipelines: {logs: {receivers: [otlp], processors: [xla_oom], exporters: [debug]}}}\n")
	out, err := exec.Command(collectorBin, "validate", "--config", bad).CombinedOutput()
	if err == nil {
		t.Fatalf("validate accepted max_scan_size: -1\n%s", out)
	}
}
