// Package components lists the factories of otelcol-xlaoom. It is the
// hand-written twin of builder-config.yaml: components_test.go checks that both
// name the same components, so the manifest users copy never drifts from the
// binary we test.
package components // import "github.com/xlaoom/xlaoomprocessor/distribution/components"

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/countconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
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
)

// Components returns the factories of every component in otelcol-xlaoom.
func Components() (otelcol.Factories, error) {
	var err error
	f := otelcol.Factories{
		// A hand-written main must set Telemetry; ocb sets the same default.
		Telemetry: otelconftelemetry.NewFactory(),
	}
	if f.Extensions, err = otelcol.MakeFactoryMap[extension.Factory](); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](
		otlpreceiver.NewFactory(),
		filelogreceiver.NewFactory(),
	); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Processors, err = otelcol.MakeFactoryMap[processor.Factory](
		xlaoomprocessor.NewFactory(),
		batchprocessor.NewFactory(),
		memorylimiterprocessor.NewFactory(),
		transformprocessor.NewFactory(),
	); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Connectors, err = otelcol.MakeFactoryMap[connector.Factory](
		// XLAOOMCONNECTOR
		countconnector.NewFactory(),
	); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](
		debugexporter.NewFactory(),
		fileexporter.NewFactory(),
		otlpexporter.NewFactory(),
		otlphttpexporter.NewFactory(),
		prometheusexporter.NewFactory(),
		prometheusremotewriteexporter.NewFactory(),
	); err != nil {
		return otelcol.Factories{}, err
	}
	return f, nil
}
