// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.yaml.in/yaml/v3"
)

// TestDemoCollectorHasTheDemoComponents: every component demo/config.yaml
// names is in the demo collector. That each is also in otelcol-xlaoom (the
// demo is a subset of the distribution, never a variant) is checked in the
// distribution's module (components.TestDemoIsASubset), since this collector
// is a module of its own, on its own collector line.
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
	for kind, have := range map[string]func(component.Type) bool{
		"receivers":  has(demo.Receivers),
		"processors": has(demo.Processors),
		"connectors": has(demo.Connectors),
		"exporters":  has(demo.Exporters),
	} {
		if len(cfg[kind]) == 0 {
			t.Errorf("demo/config.yaml has no %s", kind)
		}
		for id := range cfg[kind] {
			typ := component.MustNewType(strings.SplitN(id, "/", 2)[0])
			if !have(typ) {
				t.Errorf("%s %q of demo/config.yaml is not in the demo collector", kind, id)
			}
		}
	}
}

func has[F any](m map[component.Type]F) func(component.Type) bool {
	return func(t component.Type) bool { _, ok := m[t]; return ok }
}
