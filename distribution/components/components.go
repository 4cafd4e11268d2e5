// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package components lists the factories of otelcol-xlaoom. It is the
// hand-written twin of builder-config.yaml: components_test.go checks that both
// name the same components from the same module versions, so the manifest
// users copy never drifts from the binary we build and test.
package components // import "github.com/xlaoom/xlaoomprocessor/distribution/components"

import (
	"reflect"
	"runtime"
	"strings"

	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/countconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/loadbalancingexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/healthcheckextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/k8sattributesprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/resourcedetectionprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/journaldreceiver"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/processor/memorylimiterprocessor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"

	"github.com/xlaoom/xlaoomprocessor"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector"
)

// The versions of the pinned collector line (see go.mod).
const (
	coreBeta   = "v0.158.0"
	stable     = "v1.64.0"
	contrib    = "v0.158.0"
	xlaoom     = "v0.0.0" // replaced by the checkout (../ here, path: in the manifest)
	contribMod = "github.com/open-telemetry/opentelemetry-collector-contrib/"
)

// Entry is one component: its factory constructor and the Go module that
// provides it, written as in a builder manifest's gomod field.
type Entry[F any] struct {
	// New is the package's NewFactory, a func() returning F or a type that
	// implements F (memorylimiterprocessor returns an xprocessor.Factory).
	New   any
	GoMod string
}

// Factory calls New.
func (e Entry[F]) Factory() F {
	return reflect.ValueOf(e.New).Call(nil)[0].Interface().(F)
}

// Import is the package path of the entry's NewFactory, what a builder
// manifest names in import: (or leaves to gomod when they are equal).
func (e Entry[F]) Import() string {
	name := runtime.FuncForPC(reflect.ValueOf(e.New).Pointer()).Name() // "path/to/pkg.NewFactory"
	return name[:strings.LastIndex(name, ".")]
}

// Receivers, Processors, Connectors, Exporters and Extensions are the components of
// otelcol-xlaoom.
func Receivers() []Entry[receiver.Factory] {
	return []Entry[receiver.Factory]{
		{otlpreceiver.NewFactory, "go.opentelemetry.io/collector/receiver/otlpreceiver " + coreBeta},
		{filelogreceiver.NewFactory, contribMod + "receiver/filelogreceiver " + contrib},
		// journald reads the kernel's OOM lines where the journal alone keeps
		// them (it runs journalctl: the host's, or the node's through root_path).
		{journaldreceiver.NewFactory, contribMod + "receiver/journaldreceiver " + contrib},
	}
}

func Processors() []Entry[processor.Factory] {
	return []Entry[processor.Factory]{
		{xlaoomprocessor.NewFactory, "github.com/xlaoom/xlaoomprocessor " + xlaoom},
		{batchprocessor.NewFactory, "go.opentelemetry.io/collector/processor/batchprocessor " + coreBeta},
		{memorylimiterprocessor.NewFactory, "go.opentelemetry.io/collector/processor/memorylimiterprocessor " + coreBeta},
		{transformprocessor.NewFactory, contribMod + "processor/transformprocessor " + contrib},
		// k8s_attributes sets k8s.job.name (and pod, namespace) on agents, so
		// incidents are counted per job; resource_detection adds host/cloud facts.
		{k8sattributesprocessor.NewFactory, contribMod + "processor/k8sattributesprocessor " + contrib},
		{resourcedetectionprocessor.NewFactory, contribMod + "processor/resourcedetectionprocessor " + contrib},
	}
}

func Connectors() []Entry[connector.Factory] {
	return []Entry[connector.Factory]{
		{xlaoomconnector.NewFactory, "github.com/xlaoom/xlaoomprocessor " + xlaoom},
		{countconnector.NewFactory, contribMod + "connector/countconnector " + contrib},
	}
}

func Exporters() []Entry[exporter.Factory] {
	return []Entry[exporter.Factory]{
		{debugexporter.NewFactory, "go.opentelemetry.io/collector/exporter/debugexporter " + coreBeta},
		{fileexporter.NewFactory, contribMod + "exporter/fileexporter " + contrib},
		{otlpexporter.NewFactory, "go.opentelemetry.io/collector/exporter/otlpexporter " + coreBeta},
		{otlphttpexporter.NewFactory, "go.opentelemetry.io/collector/exporter/otlphttpexporter " + coreBeta},
		{prometheusexporter.NewFactory, contribMod + "exporter/prometheusexporter " + contrib},
		{prometheusremotewriteexporter.NewFactory, contribMod + "exporter/prometheusremotewriteexporter " + contrib},
		// load_balancing keeps every record of one job on one gateway replica,
		// so each job's metric series lives on exactly one gateway.
		{loadbalancingexporter.NewFactory, contribMod + "exporter/loadbalancingexporter " + contrib},
	}
}

// Extensions: health_check for Kubernetes probes, file_storage for the file_log
// checkpoints that let an agent restart without losing or re-reading lines.
func Extensions() []Entry[extension.Factory] {
	return []Entry[extension.Factory]{
		{healthcheckextension.NewFactory, contribMod + "extension/healthcheckextension " + contrib},
		{filestorage.NewFactory, contribMod + "extension/storage/filestorage " + contrib},
	}
}

// Providers are the configuration providers: env:, file: and yaml: URIs.
func Providers() []Entry[confmap.ProviderFactory] {
	return []Entry[confmap.ProviderFactory]{
		{envprovider.NewFactory, "go.opentelemetry.io/collector/confmap/provider/envprovider " + stable},
		{fileprovider.NewFactory, "go.opentelemetry.io/collector/confmap/provider/fileprovider " + stable},
		{yamlprovider.NewFactory, "go.opentelemetry.io/collector/confmap/provider/yamlprovider " + stable},
	}
}

// ProviderFactories returns the factories of Providers.
func ProviderFactories() []confmap.ProviderFactory {
	out := make([]confmap.ProviderFactory, 0, 3)
	for _, p := range Providers() {
		out = append(out, p.Factory())
	}
	return out
}

// Telemetry is the module of the internal-telemetry factory. A hand-written
// main must set otelcol.Factories.Telemetry; ocb uses this one by default.
const (
	Telemetry       = "go.opentelemetry.io/collector/service " + coreBeta
	TelemetryImport = "go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

// Components returns the factories of otelcol-xlaoom, with the module of each
// component for the `components` subcommand.
func Components() (otelcol.Factories, error) {
	f := otelcol.Factories{
		Telemetry:        otelconftelemetry.NewFactory(),
		ReceiverModules:  map[component.Type]string{},
		ProcessorModules: map[component.Type]string{},
		ConnectorModules: map[component.Type]string{},
		ExporterModules:  map[component.Type]string{},
		ExtensionModules: map[component.Type]string{},
	}
	var err error
	if f.Receivers, err = makeMap(Receivers(), f.ReceiverModules); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Processors, err = makeMap(Processors(), f.ProcessorModules); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Connectors, err = makeMap(Connectors(), f.ConnectorModules); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Exporters, err = makeMap(Exporters(), f.ExporterModules); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Extensions, err = makeMap(Extensions(), f.ExtensionModules); err != nil {
		return otelcol.Factories{}, err
	}
	return f, nil
}

func makeMap[F component.Factory](entries []Entry[F], modules map[component.Type]string) (map[component.Type]F, error) {
	factories := make([]F, 0, len(entries))
	for _, e := range entries {
		f := e.Factory()
		factories = append(factories, f)
		modules[f.Type()] = e.GoMod
	}
	return otelcol.MakeFactoryMap(factories...)
}
