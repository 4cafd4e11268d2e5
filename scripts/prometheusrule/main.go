// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command prometheusrule writes examples/prometheus/prometheusrule.yaml, the
// Prometheus Operator version of examples/prometheus/alerts.yaml: the same
// groups under a PrometheusRule's spec. Run it from the repository root
// after changing the rules:
//
//	go run ./scripts/prometheusrule
//
// Its test fails when the committed file differs from what it would write.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

var (
	rulesPath = filepath.Join("examples", "prometheus", "alerts.yaml")
	outPath   = filepath.Join("examples", "prometheus", "prometheusrule.yaml")
)

const header = `# Generated from alerts.yaml by ` + "`go run ./scripts/prometheusrule`" + `: do not edit.
# The xla_oom alert rules for the Prometheus Operator. Set metadata.namespace
# and the labels your Prometheus selects rules by (spec.ruleSelector).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: xla-oom
  labels:
    app.kubernetes.io/name: xla-oom
    app.kubernetes.io/component: alert-rules
spec:
`

// generate returns the PrometheusRule for a Prometheus rules file: its
// top-level groups key and everything after it, indented under spec. The
// leading comment block, which describes the file, is left out.
func generate(rules []byte) ([]byte, error) {
	lines := bytes.SplitAfter(rules, []byte("\n"))
	start := -1
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte("groups:")) {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, errors.New("no top-level groups: key")
	}
	var out bytes.Buffer
	out.WriteString(header)
	for _, l := range lines[start:] {
		if len(bytes.TrimSpace(l)) > 0 {
			out.WriteString("  ")
		}
		out.Write(l)
	}
	return out.Bytes(), nil
}

func main() {
	rules, err := os.ReadFile(rulesPath)
	if err == nil {
		var out []byte
		if out, err = generate(rules); err == nil {
			err = os.WriteFile(outPath, out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "prometheusrule:", err)
		os.Exit(1)
	}
}
