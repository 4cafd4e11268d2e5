// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const deployDir = "../../deploy"

// helmChart returns the path of the official opentelemetry-collector chart
// (XLAOOM_HELM_CHART: an unpacked chart directory or a .tgz, e.g. from
// `helm pull open-telemetry/opentelemetry-collector --version 0.170.0`) and the
// helm binary ($HELM, else helm on PATH), or skips the test saying what is missing.
func helmChart(t *testing.T) (helm, chart string) {
	t.Helper()
	chart = os.Getenv("XLAOOM_HELM_CHART")
	if chart == "" {
		t.Skip("XLAOOM_HELM_CHART not set: point it at the opentelemetry-collector chart " +
			"(helm repo add open-telemetry https://open-telemetry.github.io/opentelemetry-helm-charts && " +
			"helm pull open-telemetry/opentelemetry-collector --version 0.170.0 --untar)")
	}
	helm = os.Getenv("HELM")
	if helm == "" {
		var err error
		if helm, err = exec.LookPath("helm"); err != nil {
			t.Skip("helm not installed: make install-helm (scripts/install-helm.sh: helm v3.22.0 into bin/, Go only)")
		}
	}
	if !filepath.IsAbs(chart) {
		chart = filepath.Join(distDir, chart) // relative to distribution/, where make runs
	}
	if _, err := os.Stat(chart); err != nil {
		t.Fatalf("XLAOOM_HELM_CHART: %v", err)
	}
	return helm, chart
}

// TestHelmValues renders the chart with deploy/helm/*-values.yaml (helm lint,
// then helm template, which enforces the chart's values.schema.json), checks
// the workload each one makes, and runs `otelcol-xlaoom validate` on every
// collector config in the rendered ConfigMaps.
func TestHelmValues(t *testing.T) {
	helm, chart := helmChart(t)
	for _, c := range []struct {
		values, kind string
		config       []string // what the rendered config must hold
		pod          []string // what the rendered workload must hold
	}{
		{"agent-values.yaml", "DaemonSet", []string{"file_storage", "type: recombine", "k8s.job.name", "routing_key: service", "node_from_env_var", "root_path: /hostfs"},
			// The node's root for journald/kernel, and the chroot it runs journalctl in.
			[]string{"mountPath: /hostfs", "path: /\n", "- SYS_CHROOT"}},
		{"gateway-values.yaml", "Deployment", []string{"health_check", "cert_file: /etc/otelcol-xlaoom/tls/tls.crt", "prometheus", "xla_oom"}, nil},
	} {
		t.Run(c.values, func(t *testing.T) {
			values := filepath.Join(deployDir, "helm", c.values)
			if out, err := exec.Command(helm, "lint", chart, "-f", values).CombinedOutput(); err != nil {
				t.Fatalf("helm lint: %v\n%s", err, out)
			}
			out, err := exec.Command(helm, "template", "xlaoom", chart, "--namespace", "monitoring", "-f", values).Output()
			if err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					out = ee.Stderr
				}
				t.Fatalf("helm template: %v\n%s", err, out)
			}
			docs := yamlDocs(t, out)
			var configs []string
			workloads := 0
			for _, d := range docs {
				kind, _ := d["kind"].(string)
				switch kind {
				case "ConfigMap":
					if data, ok := d["data"].(map[string]any); ok {
						if relay, ok := data["relay"].(string); ok {
							configs = append(configs, relay)
						}
					}
				case "DaemonSet", "Deployment", "StatefulSet":
					if kind != c.kind {
						t.Errorf("rendered a %s, want a %s", kind, c.kind)
					}
					workloads++
					checkPodSpec(t, d)
					b, _ := yaml.Marshal(d)
					for _, want := range c.pod {
						if !strings.Contains(string(b), want) {
							t.Errorf("%s lacks %q", kind, want)
						}
					}
				}
			}
			if workloads != 1 || len(configs) != 1 {
				t.Fatalf("rendered %d workloads and %d collector configs, want 1 and 1", workloads, len(configs))
			}
			for _, want := range c.config {
				if !strings.Contains(configs[0], want) {
					t.Errorf("rendered config lacks %q", want)
				}
			}
			// journald/kernel's root_path must exist where the collector
			// starts: the node's root at /hostfs in the pod, a directory here.
			validateConfig(t, strings.ReplaceAll(configs[0], "root_path: /hostfs", "root_path: "+t.TempDir()))
		})
	}
}

// TestOperatorResources runs `otelcol-xlaoom validate` on the config of every
// OpenTelemetryCollector in deploy/operator.
func TestOperatorResources(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(deployDir, "operator", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("operator resources: %v %v", files, err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range yamlDocs(t, b) {
			if d["kind"] != "OpenTelemetryCollector" {
				continue
			}
			spec, _ := d["spec"].(map[string]any)
			config, err := yaml.Marshal(spec["config"])
			if err != nil {
				t.Fatal(err)
			}
			name := d["metadata"].(map[string]any)["name"].(string)
			t.Run(name, func(t *testing.T) { validateConfig(t, string(config)) })
			n++
		}
	}
	if n < 2 {
		t.Errorf("%d OpenTelemetryCollector resources, want the agent and the gateway", n)
	}
}

// checkPodSpec checks what every workload of deploy/ must have: the
// distribution's binary and health probes on the health_check port.
func checkPodSpec(t *testing.T, workload map[string]any) {
	t.Helper()
	b, _ := yaml.Marshal(workload)
	s := string(b)
	for _, want := range []string{"- /otelcol-xlaoom", "port: 13133", "mountPath: /etc/otelcol-xlaoom/tls"} {
		if !strings.Contains(s, want) {
			t.Errorf("%s lacks %q", workload["kind"], want)
		}
	}
}

// validateConfig runs `otelcol-xlaoom validate` on config, with the
// environment the chart and the operator give the pod.
func validateConfig(t *testing.T, config string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "relay.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(collectorBin, "validate", "--config", path)
	cmd.Env = append(cmd.Environ(), "MY_POD_IP=10.0.0.7", "OTEL_K8S_NODE_NAME=node-1", "K8S_NODE_NAME=node-1",
		"OTEL_K8S_NAMESPACE=monitoring", "OTEL_K8S_POD_NAME=xlaoom-0", "OTEL_K8S_POD_IP=10.0.0.7", "OTEL_K8S_NODE_IP=10.0.0.1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("otelcol-xlaoom validate: %v\n%s\nconfig:\n%s", err, out, config)
	}
}

func yamlDocs(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if d != nil {
			out = append(out, d)
		}
	}
}
