// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command xlaoom-demo is `make run`: it runs a collector once over the sample
// logs (or yours), sent over OTLP as file_log reads them, and prints what the
// collector found (package demorun).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/demorun"
)

func main() {
	var o demorun.Options
	flag.StringVar(&o.Collector, "collector", "bin/otelcol-xlaoom", "otelcol-xlaoom binary")
	flag.StringVar(&o.Config, "config", "demo/run.yaml", "collector configuration (an OTLP/HTTP receiver on ${env:XLAOOM_OTLP_HTTP}, files in ${env:XLAOOM_OUT})")
	flag.StringVar(&o.Logs, "logs", "demo/logs/*/*.log", "log files to read (a glob; <dir>/<host>/<service>.log names host and service)")
	flag.StringVar(&o.Out, "out", "out/demo", "directory for records.json, metrics.json and collector.log")
	flag.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "give up after this long")
	flag.StringVar(&o.PathsFrom, "paths-from", "", "print paths relative to this directory (default: the working directory)")
	logstore := flag.String("logstore", "", "also send the records to the VictoriaLogs at this URL (e.g. http://127.0.0.1:9428)")
	flag.Parse()
	if *logstore != "" {
		o.Env = []string{
			"XLAOOM_LOG_EXPORTERS=[file/records, xla_oom, otlp_http/logstore]",
			"XLAOOM_LOGSTORE_LOGS_ENDPOINT=" + strings.TrimRight(*logstore, "/") + "/insert/opentelemetry/v1/logs",
		}
	}
	if _, err := demorun.Run(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "xlaoom-demo:", err)
		os.Exit(1)
	}
}
