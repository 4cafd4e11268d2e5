// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

// The collector's own telemetry, as the demo uses it: its log on stderr at
// service::telemetry::logs::level, and no internal metrics or traces. The
// standard factory (otelconftelemetry) also exports them and detects the
// cloud it runs on, which brings the AWS, GCP and Kubernetes clients: a
// third of this collector's build, for nothing the demo shows.

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configtelemetry"
	"go.opentelemetry.io/collector/service/telemetry"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// telemetryConfig is the part of service::telemetry this collector reads.
// Any other key is an error when the configuration is loaded.
type telemetryConfig struct {
	Logs    logsConfig    `mapstructure:"logs"`
	Metrics metricsConfig `mapstructure:"metrics"`
}

type logsConfig struct {
	Level zapcore.Level `mapstructure:"level"`
}

type metricsConfig struct {
	// Level must be none: this collector has no internal metrics to export.
	Level configtelemetry.Level `mapstructure:"level"`
}

func (c *telemetryConfig) Validate() error {
	if c.Metrics.Level != configtelemetry.LevelNone {
		return fmt.Errorf("service::telemetry::metrics::level must be none: the demo collector exports no internal metrics (otelcol-xlaoom does)")
	}
	return nil
}

func newTelemetryFactory() telemetry.Factory {
	return telemetry.NewFactory(
		func() component.Config {
			return &telemetryConfig{Logs: logsConfig{Level: zapcore.InfoLevel}, Metrics: metricsConfig{Level: configtelemetry.LevelNone}}
		},
		telemetry.WithCreateLogger(func(_ context.Context, set telemetry.LoggerSettings, cfg component.Config) (*zap.Logger, component.ShutdownFunc, error) {
			zc := zap.NewProductionConfig()
			zc.Level = zap.NewAtomicLevelAt(cfg.(*telemetryConfig).Logs.Level)
			zc.Encoding = "console"
			zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
			build := set.BuildZapLogger
			if build == nil {
				build = zap.Config.Build
			}
			logger, err := build(zc)
			return logger, nil, err
		}),
	)
}
