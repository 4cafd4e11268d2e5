// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/service/telemetry"
	"go.uber.org/zap/zapcore"
	"go.yaml.in/yaml/v3"
)

// TestDemoCollectorHasTheDemoComponents: every component demo/run.yaml
// names is in the demo collector. That each is also in otelcol-xlaoom (the
// demo is a subset of the distribution, never a variant) is checked in the
// distribution's module (components.TestDemoIsASubset), since this collector
// is a module of its own, on its own collector line.
func TestDemoCollectorHasTheDemoComponents(t *testing.T) {
	b, err := os.ReadFile("../../demo/run.yaml")
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
			t.Errorf("demo/run.yaml has no %s", kind)
		}
		for id := range cfg[kind] {
			typ := component.MustNewType(strings.SplitN(id, "/", 2)[0])
			if !have(typ) {
				t.Errorf("%s %q of demo/run.yaml is not in the demo collector", kind, id)
			}
		}
	}
}

func has[F any](m map[component.Type]F) func(component.Type) bool {
	return func(t component.Type) bool { _, ok := m[t]; return ok }
}

// The demo's service::telemetry loads into the demo collector's telemetry:
// the log level is the configured one; internal metrics other than none,
// and keys it does not read, are errors, not ignored.
func TestTelemetryConfig(t *testing.T) {
	f := newTelemetryFactory()
	for _, c := range []struct {
		name string
		raw  map[string]any
		err  bool
	}{
		{"demo", map[string]any{"logs": map[string]any{"level": "warn"}, "metrics": map[string]any{"level": "none"}}, false},
		{"metrics", map[string]any{"metrics": map[string]any{"level": "basic"}}, true},
		{"unknown key", map[string]any{"logs": map[string]any{"encoding": "json"}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := f.CreateDefaultConfig()
			err := confmap.NewFromStringMap(c.raw).Unmarshal(cfg)
			if err == nil {
				err = confmap.Validate(cfg)
			}
			if (err != nil) != c.err {
				t.Fatalf("error %v, want one: %v", err, c.err)
			}
			if c.err {
				return
			}
			logger, _, err := f.CreateLogger(context.Background(), telemetry.LoggerSettings{}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if logger.Core().Enabled(zapcore.InfoLevel) || !logger.Core().Enabled(zapcore.WarnLevel) {
				t.Errorf("the logger does not log at warn and above only")
			}
		})
	}
}
