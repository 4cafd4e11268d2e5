// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command otelcol-xlaoom is an OpenTelemetry Collector distribution with the
// xla_oom processor and connector and the components a node agent or gateway
// needs around them. It is hand-written so that the repository builds with a
// plain `go build`; builder-config.yaml is the equivalent ocb manifest.
package main

import (
	"log"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/otelcol"

	"github.com/xlaoom/xlaoomprocessor/distribution/components"
)

// version is set with -ldflags "-X main.version=…" by make (VERSION-dev) and
// goreleaser (the release tag); this default, for a plain go build, is what
// scripts/versionrefs writes from the VERSION file.
var version = "0.1.0-dev"

func main() {
	if err := otelcol.NewCommand(Settings()).Execute(); err != nil {
		log.Fatal(err)
	}
}

// Settings are the collector settings of otelcol-xlaoom.
func Settings() otelcol.CollectorSettings {
	return otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol-xlaoom",
			Description: "OpenTelemetry Collector with the xla_oom processor and connector",
			Version:     version,
		},
		Factories: components.Components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: components.ProviderFactories(),
				DefaultScheme:     "env",
			},
		},
	}
}
