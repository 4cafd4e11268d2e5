// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package packaging holds the files the .deb and .rpm install (.goreleaser.yaml)
// and the test that keeps the packaged single-machine config in step with
// examples/all-in-one.yaml.
package packaging

import (
	"os"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

func readConfig(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// section returns the map at the path of keys in c, failing the test when
// one is missing.
func section(t *testing.T, c map[string]any, keys ...string) map[string]any {
	t.Helper()
	for _, k := range keys {
		next, ok := c[k].(map[string]any)
		if !ok {
			t.Fatalf("no map at %v", keys)
		}
		c = next
	}
	return c
}

// TestAllInOneIsTheExample: all-in-one.yaml is examples/all-in-one.yaml with
// only what a service needs changed (its header lists them), so a change to
// the example's pipeline reaches the package or fails here.
func TestAllInOneIsTheExample(t *testing.T) {
	want := readConfig(t, "../../examples/all-in-one.yaml")
	agent := readConfig(t, "../../examples/agent.yaml")

	// The node agent's health check and checkpoint storage, as it declares them.
	want["extensions"] = agent["extensions"]
	section(t, want, "service")["extensions"] = section(t, agent, "service")["extensions"]
	fileLog := section(t, want, "receivers", "file_log")
	fileLog["storage"] = "file_storage"
	fileLog["start_at"] = "${env:XLAOOM_START_AT:-beginning}"
	section(t, want, "receivers", "journald/kernel")["storage"] = "file_storage" // its cursor
	// The records under the service's storage directory, rotated.
	section(t, want, "exporters")["file/records"] = map[string]any{
		"path":     "${env:XLAOOM_RECORDS_FILE:-/var/lib/otelcol-xlaoom/records.json}",
		"rotation": map[string]any{"max_megabytes": 100, "max_backups": 3},
	}

	got := readConfig(t, "all-in-one.yaml")
	if !reflect.DeepEqual(got, want) {
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("%s differs from examples/all-in-one.yaml beyond the package's changes:\ngot  %v\nwant %v", k, got[k], want[k])
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s is not in examples/all-in-one.yaml: %v", k, got[k])
			}
		}
	}
}
