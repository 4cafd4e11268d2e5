// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command prometheusrule writes examples/prometheus/prometheusrule.yaml, the
// Prometheus Operator version of examples/prometheus/alerts.yaml (pages) and
// warnings.yaml (the early-warning ticket): their groups under one
// PrometheusRule's spec. Run it from the repository root
// after changing the rules:
//
//	go run ./scripts/prometheusrule
//
// Its test fails when the committed file differs from what it would write.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

var (
	rulePaths = []string{
		filepath.Join("examples", "prometheus", "alerts.yaml"),
		filepath.Join("examples", "prometheus", "warnings.yaml"),
	}
	outPath = filepath.Join("examples", "prometheus", "prometheusrule.yaml")
)

const header = `# Generated from alerts.yaml and warnings.yaml by ` + "`go run ./scripts/prometheusrule`" + `: do not edit.
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

// generate returns the PrometheusRule for Prometheus rules files: the
// groups of every file, in order, indented under spec. Each file's leading
// comment block, which describes the file, is left out.
func generate(files ...[]byte) ([]byte, error) {
	var out bytes.Buffer
	out.WriteString(header)
	out.WriteString("  groups:\n")
	for i, rules := range files {
		lines := bytes.SplitAfter(rules, []byte("\n"))
		start := -1
		for k, l := range lines {
			if bytes.HasPrefix(l, []byte("groups:")) {
				start = k
				break
			}
		}
		if start < 0 {
			return nil, fmt.Errorf("rules file %d has no top-level groups: key", i+1)
		}
		for _, l := range lines[start+1:] {
			if len(bytes.TrimSpace(l)) > 0 {
				out.WriteString("  ")
			}
			out.Write(l)
		}
	}
	return out.Bytes(), nil
}

// readRules reads every rules file, relative to root.
func readRules(root string) ([][]byte, error) {
	var files [][]byte
	for _, p := range rulePaths {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, err
		}
		files = append(files, b)
	}
	return files, nil
}

func main() {
	files, err := readRules(".")
	if err == nil {
		var out []byte
		if out, err = generate(files...); err == nil {
			err = os.WriteFile(outPath, out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "prometheusrule:", err)
		os.Exit(1)
	}
}
