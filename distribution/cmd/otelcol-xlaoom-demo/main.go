// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command otelcol-xlaoom-demo is the collector of `make run`: only what the
// demo configuration (demo/run.yaml) uses: the OTLP receiver, the xla_oom
// processor and connector, the file and OTLP/HTTP exporters. It leaves out
// what makes a first build slow: file_log (its parsers: a third of the
// build; the runner reads the logs as demo/config.yaml's file_log does and
// sends them over OTLP), the prometheus exporter (Prometheus' discovery;
// the demo reads the metrics the file exporter wrote) and the standard
// telemetry factory (cloud resource detectors; telemetry.go). The image,
// Kubernetes and the end-to-end tests use otelcol-xlaoom, which has them all.
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"

	"github.com/xlaoom/xlaoomprocessor"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector"
)

// version is set with -ldflags "-X main.version=…" by make (VERSION-dev) and
// goreleaser (the release tag); this default, for a plain go build, is what
// scripts/versionrefs writes from the VERSION file.
var version = "0.1.0-dev"

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol-xlaoom-demo",
			Description: "The demo's collector: OTLP receiver, the xla_oom processor and connector, file and OTLP/HTTP exporters",
			Version:     version,
		},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{envprovider.NewFactory(), fileprovider.NewFactory(), yamlprovider.NewFactory()},
				DefaultScheme:     "env",
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}

func factories() (otelcol.Factories, error) {
	f := otelcol.Factories{Telemetry: newTelemetryFactory()}
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap(otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	if f.Processors, err = otelcol.MakeFactoryMap(xlaoomprocessor.NewFactory()); err != nil {
		return f, err
	}
	if f.Connectors, err = otelcol.MakeFactoryMap(xlaoomconnector.NewFactory()); err != nil {
		return f, err
	}
	f.Exporters, err = otelcol.MakeFactoryMap(fileexporter.NewFactory(), otlphttpexporter.NewFactory())
	return f, err
}
