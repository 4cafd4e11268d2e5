// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package packaging

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// kernelSource is the one entry of a config's logs pipeline that reads the
// kernel's log: file_log/kernel or journald/kernel, as XLAOOM_KERNEL_SOURCE
// chooses.
const kernelSource = "${env:XLAOOM_KERNEL_SOURCE:-file_log/kernel}"

// oomFilter takes the pattern out of a filter expression.
var oomFilter = regexp.MustCompile(`not matches "([^"]+)"`)

// TestOneKernelSource: every shipped config reads the kernel's log through one
// receiver, never both (the journal and kern.log carry the same kill), and
// both receivers keep the same OOM lines. The package's environment file
// picks the journal.
func TestOneKernelSource(t *testing.T) {
	for _, path := range []string{"../../examples/agent.yaml", "../../examples/all-in-one.yaml", "all-in-one.yaml"} {
		c := readConfig(t, path)
		var kernel []string
		for _, r := range section(t, c, "service", "pipelines", "logs")["receivers"].([]any) {
			if strings.Contains(r.(string), "kernel") {
				kernel = append(kernel, r.(string))
			}
		}
		if len(kernel) != 1 || kernel[0] != kernelSource {
			t.Errorf("%s: the logs pipeline reads the kernel through %v, want [%s]", path, kernel, kernelSource)
		}
		file := filterPattern(t, path, section(t, c, "receivers", "file_log/kernel"))
		journal := section(t, c, "receivers", "journald/kernel")
		if got := filterPattern(t, path, journal); got != file {
			t.Errorf("%s: journald/kernel keeps %q, file_log/kernel %q", path, got, file)
		}
		// --dmesg (the kernel's entries only) from the boot's beginning: at the
		// end, journalctl ignores the stored cursor (docs/deployment.md).
		if journal["dmesg"] != true || journal["start_at"] != "beginning" {
			t.Errorf("%s: journald/kernel dmesg %v, start_at %v: want true, beginning", path, journal["dmesg"], journal["start_at"])
		}
	}
	values := readConfig(t, "../../deploy/helm/agent-values.yaml")
	config := section(t, values, "config")
	got := section(t, config, "service", "pipelines", "logs/kernel")["receivers"]
	if r, ok := got.([]any); !ok || len(r) != 1 || r[0] != "journald/kernel" {
		t.Errorf("agent-values.yaml: logs/kernel reads %v, want [journald/kernel]", got)
	}
	if f, j := filterPattern(t, "agent-values.yaml", section(t, config, "receivers", "file_log/kernel")),
		filterPattern(t, "agent-values.yaml", section(t, config, "receivers", "journald/kernel")); f != j {
		t.Errorf("agent-values.yaml: journald/kernel keeps %q, file_log/kernel %q", j, f)
	}

	b, err := os.ReadFile("otelcol-xlaoom.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^XLAOOM_KERNEL_SOURCE=journald/kernel$`).Match(b) {
		t.Error("otelcol-xlaoom.conf does not set XLAOOM_KERNEL_SOURCE=journald/kernel")
	}
}

// filterPattern returns the pattern of a kernel receiver's filter operator.
func filterPattern(t *testing.T, path string, receiver map[string]any) string {
	t.Helper()
	ops, _ := receiver["operators"].([]any)
	for _, op := range ops {
		m, _ := op.(map[string]any)
		if m["type"] != "filter" {
			continue
		}
		if p := oomFilter.FindStringSubmatch(m["expr"].(string)); p != nil {
			return p[1]
		}
	}
	t.Fatalf("%s: a kernel receiver without its OOM filter: %v", path, receiver)
	return ""
}
