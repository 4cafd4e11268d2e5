// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.yaml.in/yaml/v3"

	"github.com/xlaoom/xlaoomprocessor/distribution/components"
)

// TestDemoCollectorHasTheDemoComponents: every component demo/config.yaml
// names is in the demo collector, built from the same factory as in
// otelcol-xlaoom (the demo is a subset of the distribution, never a variant).
func TestDemoCollectorHasTheDemoComponents(t *testing.T) {
	b, err := os.ReadFile("../../demo/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]map[string]any
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	demo, err := factories()
	if err != nil {
		t.Fatal(err)
	}
	full, err := components.Components()
	if err != nil {
		t.Fatal(err)
	}
	for kind, have := range map[string][2]func(component.Type) bool{
		"receivers":  {has(demo.Receivers), has(full.Receivers)},
		"processors": {has(demo.Processors), has(full.Processors)},
		"connectors": {has(demo.Connectors), has(full.Connectors)},
		"exporters":  {has(demo.Exporters), has(full.Exporters)},
	} {
		if len(cfg[kind]) == 0 {
			t.Errorf("demo/config.yaml has no %s", kind)
		}
		for id := range cfg[kind] {
			typ := component.MustNewType(strings.SplitN(id, "/", 2)[0])
			if !have[0](typ) {
				t.Errorf("%s %q of demo/config.yaml is not in the demo collector", kind, id)
			}
			if !have[1](typ) {
				t.Errorf("%s %q of the demo collector is not in otelcol-xlaoom", kind, id)
			}
		}
	}
}

func has[F any](m map[component.Type]F) func(component.Type) bool {
	return func(t component.Type) bool { _, ok := m[t]; return ok }
}
