// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command otelcol-xlaoom-demo is the collector of `make run`: only what the
// demo configurations use (file_log in; the xla_oom processor and connector;
// file and OTLP/HTTP out). It builds in a fraction of the time of
// otelcol-xlaoom, whose Kubernetes and cloud components make up most of
// that, so a first run shows its result sooner. The prometheus exporter is
// left out too (with Prometheus' service discovery it would double the
// build): the demo reads the metrics the file exporter wrote. The image,
// Kubernetes and the end-to-end tests use otelcol-xlaoom.
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"

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
			Description: "The demo's collector: file_log, the xla_oom processor and connector, file and OTLP/HTTP exporters",
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
	f := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap(filelogreceiver.NewFactory()); err != nil {
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
