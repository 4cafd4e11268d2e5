// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// realKill is the real kill of a 64 MiB cgroup v1 memory cgroup on Linux
// 6.18, as dmesg printed it.
var realKill = filepath.Join("..", "..", "..", "..", "hostoom", "testdata", "memcg-v1-linux-6.18.dmesg.txt")

// asFormat rewrites the dmesg lines in the header of another tool.
func asFormat(t *testing.T, format string) string {
	t.Helper()
	b, err := os.ReadFile(realKill)
	if err != nil {
		t.Fatal(err)
	}
	header := regexp.MustCompile(`(?m)^\[ *\d+\.\d+\] `)
	switch format {
	case "dmesg -T":
		return header.ReplaceAllString(string(b), "[Fri Nov 27 18:48:46 2026] ")
	case "journalctl -k":
		return header.ReplaceAllString(string(b), "Nov 27 18:48:46 node-7 kernel: ")
	case "kmsg":
		return header.ReplaceAllString(string(b), "6,1234,2190840616,-;")
	}
	return string(b)
}

func TestExplainHostKill(t *testing.T) {
	for _, format := range []string{"dmesg", "dmesg -T", "journalctl -k", "kmsg"} {
		var out, errOut bytes.Buffer
		status := Main([]string{"explain"}, strings.NewReader(asFormat(t, format)), &out, &errOut)
		text := out.String()
		if status != ExitFutile || strings.Count(text, "host-memory kill (kernel") != 1 ||
			!strings.Contains(text, "killed:     python3, pid 29330") || !strings.Contains(text, "rss:        64.21 MiB") ||
			!strings.Contains(text, "limit:      64.00 MiB") || !strings.Contains(text, "0 OOM failures") {
			t.Errorf("%s: status %d\n%s%s", format, status, text, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if status := Main([]string{"explain", "--json", realKill}, nil, &out, &errOut); status != ExitFutile {
		t.Fatalf("--json: status %d: %s", status, errOut.String())
	}
	var got struct {
		Kind       string         `json:"kind"`
		Line       int            `json:"line"`
		Attributes map[string]any `json:"attributes"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	a := got.Attributes
	if got.Kind != "host_kill" || got.Line != 1 || a["process.pid"] != float64(29330) || a["xla.oom.host.rss.size"] != float64(67325952) ||
		a["xla.oom.host.limit.size"] != float64(67108864) || a["xla.oom.retry"] != "futile" || a["xla.error.code"] != nil {
		t.Errorf("--json: %s", out.String())
	}
}

// TestExplainHostLookalikes: a log whose lines only look like kills
// (a shell's "Killed", oom_score_adj tuning, the JVM's heap) has none.
func TestExplainHostLookalikes(t *testing.T) {
	log := "/bin/sh: line 1:  4242 Killed                  python train.py\n" +
		"Set oom_score_adj to -999 for pid 4242\n" +
		"Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n"
	var out, errOut bytes.Buffer
	if status := Main([]string{"explain"}, strings.NewReader(log), &out, &errOut); status != ExitNone || strings.Contains(out.String(), "host-memory") {
		t.Errorf("status %d\n%s", status, out.String())
	}
}

// TestExplainSlurmKill: a Slurm job's output with slurmstepd's line and
// srun's echo of it is one kill, of the step.
func TestExplainSlurmKill(t *testing.T) {
	log := "epoch 3 step 1200 loss 2.31\n" +
		"slurmstepd: error: Detected 1 oom_kill event in StepId=8841.0. Some of the step tasks have been OOM Killed.\n" +
		"srun: error: node-7: task 0: Out Of Memory\n" +
		"srun: Terminating StepId=8841.0\n"
	var out, errOut bytes.Buffer
	status := Main([]string{"explain"}, strings.NewReader(log), &out, &errOut)
	if text := out.String(); status == ExitNone || strings.Count(text, "host-memory kill (slurm") != 1 ||
		!strings.Contains(text, "summary: 1 host-memory kill") || !strings.Contains(text, "Slurm job 8841 step 0") {
		t.Errorf("status %d\n%s%s", status, text, errOut.String())
	}
}
