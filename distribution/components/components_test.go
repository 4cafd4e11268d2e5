// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package components

import (
	"os"
	"sort"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.yaml.in/yaml/v3"
)

// manifest is the part of an ocb manifest this test reads.
type manifest struct {
	Receivers  []module `yaml:"receivers"`
	Processors []module `yaml:"processors"`
	Connectors []module `yaml:"connectors"`
	Exporters  []module `yaml:"exporters"`
	Extensions []module `yaml:"extensions"`
	Providers  []module `yaml:"providers"`
	Telemetry  module   `yaml:"telemetry"`
}

type module struct {
	GoMod  string `yaml:"gomod"`
	Import string `yaml:"import"`
	Path   string `yaml:"path"`
}

// key is how a manifest entry and a hand-written entry are compared: the
// module with its version, and the package whose NewFactory is called.
func (m module) key() string {
	imp := m.Import
	if imp == "" {
		imp = strings.Fields(m.GoMod)[0]
	}
	return m.GoMod + " => " + imp
}

func keys[F any](entries []Entry[F]) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.GoMod+" => "+e.Import())
	}
	sort.Strings(out)
	return out
}

func manifestKeys(mods []module) []string {
	out := make([]string, 0, len(mods))
	for _, m := range mods {
		out = append(out, m.key())
	}
	sort.Strings(out)
	return out
}

func readManifest(t *testing.T) manifest {
	t.Helper()
	b, err := os.ReadFile("../builder-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestManifestMatchesHandWrittenComponents proves builder-config.yaml and the
// hand-written Components list the same components, from the same modules at
// the same versions, calling the same packages' NewFactory.
func TestManifestMatchesHandWrittenComponents(t *testing.T) {
	m := readManifest(t)
	for _, c := range []struct {
		kind      string
		manifest  []string
		handWrite []string
	}{
		{"receivers", manifestKeys(m.Receivers), keys(Receivers())},
		{"processors", manifestKeys(m.Processors), keys(Processors())},
		{"connectors", manifestKeys(m.Connectors), keys(Connectors())},
		{"exporters", manifestKeys(m.Exporters), keys(Exporters())},
		{"extensions", manifestKeys(m.Extensions), keys(Extensions())},
		{"providers", manifestKeys(m.Providers), keys(Providers())},
		{"telemetry", []string{m.Telemetry.key()}, []string{Telemetry + " => " + TelemetryImport}},
	} {
		if strings.Join(c.manifest, "\n") != strings.Join(c.handWrite, "\n") {
			t.Errorf("%s differ:\nbuilder-config.yaml:\n  %s\ncomponents.go:\n  %s",
				c.kind, strings.Join(c.manifest, "\n  "), strings.Join(c.handWrite, "\n  "))
		}
	}
}

// TestFactoriesAreTheListedOnes checks that Components builds one factory per
// listed entry, with the component types the example configs use.
func TestFactoriesAreTheListedOnes(t *testing.T) {
	f, err := Components()
	if err != nil {
		t.Fatal(err)
	}
	if f.Telemetry == nil {
		t.Fatal("Factories.Telemetry is nil: a hand-written main must set it")
	}
	// The factory maps also hold deprecated aliases (filelog, otlp, ...); the
	// module maps hold one entry per listed component.
	types := func(factories map[component.Type]bool, modules map[component.Type]string) []string {
		var out []string
		for typ := range modules {
			if !factories[typ] {
				t.Errorf("%s has a module but no factory", typ)
			}
			out = append(out, typ.String())
		}
		sort.Strings(out)
		return out
	}
	for _, c := range []struct {
		got  []string
		want string
	}{
		{types(set(f.Receivers), f.ReceiverModules), "file_log journald otlp"},
		{types(set(f.Processors), f.ProcessorModules), "batch k8s_attributes memory_limiter resource_detection transform xla_oom"},
		{types(set(f.Connectors), f.ConnectorModules), "count xla_oom"},
		{types(set(f.Exporters), f.ExporterModules), "debug file load_balancing otlp_grpc otlp_http prometheus prometheus_remote_write"},
		{types(set(f.Extensions), f.ExtensionModules), "file_storage health_check"},
	} {
		if got := strings.Join(c.got, " "); got != c.want {
			t.Errorf("component types %q, want %q", got, c.want)
		}
	}
}

// TestManifestVersionsAreTheBuiltOnes checks each gomod version against the
// version go.mod selects (go mod tidy lists every module of the build), so the
// manifest cannot pin a version the hand-written distribution does not build with.
func TestManifestVersionsAreTheBuiltOnes(t *testing.T) {
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && strings.Contains(f[0], ".") && strings.HasPrefix(f[1], "v") {
			linked[f[0]] = f[1]
		}
	}
	m := readManifest(t)
	all := append(append(append(append(append([]module{}, m.Receivers...), m.Processors...), m.Connectors...), m.Exporters...), m.Providers...)
	all = append(all, m.Extensions...)
	all = append(all, m.Telemetry)
	for _, mod := range all {
		f := strings.Fields(mod.GoMod)
		if len(f) != 2 {
			t.Errorf("gomod %q: want \"module version\"", mod.GoMod)
			continue
		}
		if mod.Path != "" {
			continue // a local checkout: the version is a placeholder
		}
		if v, ok := linked[f[0]]; !ok {
			t.Errorf("%s is in the manifest but not in go.mod", f[0])
		} else if v != f[1] {
			t.Errorf("%s: manifest pins %s, go.mod %s", f[0], f[1], v)
		}
	}
}

func set[F any](m map[component.Type]F) map[component.Type]bool {
	out := make(map[component.Type]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// TestDemoIsASubset: every component the demo's configs name (run.yaml, what
// `make run` runs; config.yaml, its file_log and Prometheus form) is also in
// otelcol-xlaoom, so the demo (a collector of its own module, on its own
// collector line: cmd/otelcol-xlaoom-demo) shows what the distribution runs,
// never a component it lacks.
func TestDemoIsASubset(t *testing.T) {
	f, err := Components()
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../demo/run.yaml", "../demo/config.yaml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]map[string]any
		if err := yaml.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		for kind, have := range map[string]map[component.Type]bool{
			"receivers":  set(f.Receivers),
			"processors": set(f.Processors),
			"connectors": set(f.Connectors),
			"exporters":  set(f.Exporters),
		} {
			if len(cfg[kind]) == 0 {
				t.Errorf("%s has no %s", file, kind)
			}
			for id := range cfg[kind] {
				if typ := component.MustNewType(strings.SplitN(id, "/", 2)[0]); !have[typ] {
					t.Errorf("%s %q of %s is not in otelcol-xlaoom", kind, id, file)
				}
			}
		}
	}
}
