// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/jobcheck"
)

// platformTexts are kubectl's and Slurm's texts of hostoom's tests.
var platformTexts = filepath.Join("..", "..", "..", "..", "hostoom", "testdata")

// hostKillLine is the facts of one --json host kill that a platform's text prints.
type hostKillLine struct {
	line                      int
	pod, ns, container, retry string
	restarts, limit, tasks    int64
	source                    string
}

// jsonHostKills reads explain --json's host kills.
func jsonHostKills(t *testing.T, out []byte) []hostKillLine {
	t.Helper()
	var kills []hostKillLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var k jsonHostKill
		require.NoError(t, json.Unmarshal(sc.Bytes(), &k))
		if k.Kind != "host_kill" {
			continue
		}
		a := k.Attributes
		str := func(key string) string { s, _ := a[key].(string); return s }
		num := func(key string, none int64) int64 {
			if f, ok := a[key].(float64); ok {
				return int64(f)
			}
			return none
		}
		kills = append(kills, hostKillLine{k.Line, str("k8s.pod.name"), str("k8s.namespace.name"), str("k8s.container.name"),
			k.Retry, num("k8s.container.restart_count", -1), num("xla.oom.host.limit.size", 0), num("xla.oom.host.tasks", 0),
			str("xla.oom.host.source")})
	}
	return kills
}

// TestExplainPlatformTexts: explain finds each kill of kubectl's and Slurm's texts (versions: hostoom's
// TestTextKillsFixtures), with its pod, container, restart count, limit and count, once; look-alikes none.
func TestExplainPlatformTexts(t *testing.T) {
	const gi = 1 << 30
	tests := []struct {
		file string
		want []hostKillLine
	}{
		{"kubectl/describe-pod-oomkilling-1.28.txt", []hostKillLine{{28, "train-llm-0", "ml", "trainer", "futile", 3, 8 * gi, 3, "kernel"}}},
		{"kubectl/describe-pod-oomkilled-1.15.txt", []hostKillLine{{23, "preprocess-x7k2q", "default", "preprocess", "unknown", 0, 2 * gi, 0, "kubernetes"}}},
		// the eviction message is also a statement the log reader knows: counted once
		{"kubectl/describe-pod-evicted-1.28.txt", []hostKillLine{{11, "dataloader-5d8f7c9b6-qwx4z", "ml", "loader", "may_help", -1, 4 * gi, 0, "kubernetes"}}},
		{"kubectl/describe-pod-lookalikes-1.28.txt", nil},
		{"kubectl/describe-node-systemoom-1.28.txt", []hostKillLine{{17, "", "", "", "may_help", -1, 0, 0, "kubernetes"}}},
		{"kubectl/get-pods-wide-1.28.txt", []hostKillLine{
			{2, "train-llm-0", "ml", "", "unknown", 3, 0, 0, "kubernetes"},
			{4, "prep-4kq9d", "ml", "", "unknown", 0, 0, 0, "kubernetes"}}},
		{"kubectl/get-pods-1.15.txt", []hostKillLine{{2, "preprocess-x7k2q", "", "", "unknown", 0, 0, 0, "kubernetes"}}},
		{"kubectl/get-events-1.28.txt", []hostKillLine{
			{3, "", "", "", "futile", -1, 0, 3, "kernel"},
			{5, "", "", "", "may_help", -1, 0, 0, "kubernetes"},
			{6, "dataloader-5d8f7c9b6-qwx4z", "", "loader", "may_help", -1, 4 * gi, 0, "kubernetes"}}},
		{"kubectl/get-events-1.13.txt", []hostKillLine{
			{2, "", "", "", "futile", -1, 0, 4, "kernel"},
			{3, "", "", "", "may_help", -1, 0, 0, "kubernetes"}}},
		{"kubectl/get-pod-yaml-1.28.txt", []hostKillLine{{1, "train-llm-0", "ml", "trainer", "unknown", 3, 8 * gi, 0, "kubernetes"}}},
		{"kubectl/get-pods-json-1.28.txt", []hostKillLine{{1, "preprocess-x7k2q", "default", "preprocess", "unknown", 0, 2 * gi, 0, "kubernetes"}}},
		{"slurm/sacct-default-23.02.txt", []hostKillLine{
			{4, "", "", "", "unknown", -1, 0, 0, "slurm"},
			{9, "", "", "", "unknown", -1, 0, 0, "slurm"}}},
		{"slurm/sacct-parsable-23.02.txt", []hostKillLine{
			{3, "", "", "", "unknown", -1, 64 * gi, 0, "slurm"},
			{5, "", "", "", "unknown", -1, 64 * gi, 0, "slurm"}}},
		{"slurm/seff-2.1.txt", []hostKillLine{{4, "", "", "", "unknown", -1, 64 * gi, 0, "slurm"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var out, errOut bytes.Buffer
			Main([]string{"explain", "--json", filepath.Join(platformTexts, tt.file)}, nil, &out, &errOut)
			assert.Equal(t, tt.want, jsonHostKills(t, out.Bytes()), errOut.String())
		})
	}
}

// TestExplainDescribeInSession: `kubectl describe pod` pasted with the shell session around it, after a job's log:
// the kill's line is the text's, and the text's text output names the pod.
func TestExplainDescribeInSession(t *testing.T) {
	describe, err := os.ReadFile(filepath.Join(platformTexts, "kubectl/describe-pod-oomkilling-1.28.txt"))
	require.NoError(t, err)
	in := "2024-04-29 14:55:40.118224: I external/xla/xla/service/service.cc:168] XLA service initialized\n" +
		"$ kubectl describe pod -n ml train-llm-0\n" + string(describe) + "$ kubectl get pods -n ml\n" +
		"NAME          READY   STATUS      RESTARTS      AGE\ntrain-llm-0   0/2     OOMKilled   3 (9m ago)    15m\n"
	var out, errOut bytes.Buffer
	status := Main([]string{"explain"}, strings.NewReader(in), &out, &errOut)
	text := out.String()
	assert.Equal(t, ExitFound, status, errOut.String()) // the last kill decides: OOMKilled alone, unknown
	assert.Equal(t, 2, strings.Count(text, "host-memory kill ("), text)
	for _, s := range []string{"stdin:30: host-memory kill (kernel, 2 statements)", "pod:        ml/train-llm-0, container trainer, restart count 3",
		"count:      3 kills", "limit:      8.00 GiB", "retry:      futile (rule: own cgroup limit)",
		fmt.Sprintf("stdin:%d: host-memory kill (kubernetes, 1 statements)", 5+strings.Count(string(describe), "\n")),
		"pod:        train-llm-0, restart count 3"} {
		assert.Contains(t, text, s)
	}
}

// kubectlTimestamp is the prefix kubectl logs --timestamps (kubelet 1.28, RFC3339NanoFixed) writes before each line.
func kubectlTimestamp(i int) string {
	return fmt.Sprintf("2024-04-29T14:55:%02d.%09dZ ", 10+i/1000%50, 678628123+i)
}

var recordsRe = regexp.MustCompile(`\d+ records?`)

// TestExplainKubectlTimestamps: a real job log as `kubectl logs --timestamps` prints it explains as the log itself
// does: the same failures, sites, verdicts and lines, every record whole.
func TestExplainKubectlTimestamps(t *testing.T) {
	jobs, err := jobcheck.ReadJobs(jobsSet.dir)
	require.NoError(t, err)
	for _, job := range jobs {
		if strings.HasSuffix(job.Name, ".holder") {
			continue
		}
		t.Run(job.Name, func(t *testing.T) {
			log, err := os.ReadFile(job.Log)
			require.NoError(t, err)
			var stamped strings.Builder
			for i, l := range strings.SplitAfter(string(log), "\n") {
				if l != "" {
					stamped.WriteString(kubectlTimestamp(i) + l)
				}
			}
			var plain, withPrefix, plainSummary, summary bytes.Buffer
			wantStatus := Main([]string{"explain", "--json"}, bytes.NewReader(log), &plain, &plainSummary)
			status := Main([]string{"explain", "--json"}, strings.NewReader(stamped.String()), &withPrefix, &summary)
			assert.Equal(t, wantStatus, status)
			assert.Equal(t, plain.String(), withPrefix.String())
			assert.Equal(t, recordsRe.FindString(plainSummary.String()), recordsRe.FindString(summary.String()), summary.String())
		})
	}
}

// TestDocsKubectlExample keeps docs/explain.md's kubectl example what the command prints today.
func TestDocsKubectlExample(t *testing.T) {
	docsExample(t, "hostoom/testdata/kubectl/describe-pod-oomkilling-1.28.txt")
}

// TestSplitKubectlTimestamps: the prefix is taken off when the input's first line has it (kubectl 1.28 logs
// --timestamps), so that a traceback is one record; a log whose first line lacks it keeps every line as written.
func TestSplitKubectlTimestamps(t *testing.T) {
	traceback := "2024-04-29 14:55:41.678628: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2826] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.\n" +
		"Traceback (most recent call last):\n" +
		"  File \"train.py\", line 12, in <module>\n"
	tests := []struct {
		name, in string
		want     []string
	}{
		{"stamped", "2024-04-29T14:55:41.678628123Z " + strings.ReplaceAll(strings.TrimSuffix(traceback, "\n"), "\n", "\n2024-04-29T14:55:41.678629001Z ") + "\n",
			[]string{strings.TrimSpace(traceback)}},
		{"first line not stamped", "plain first line\n2024-04-29T14:55:41.678628123Z second\n",
			[]string{"plain first line", "2024-04-29T14:55:41.678628123Z second"}},
	}
	for _, tt := range tests {
		var got []string
		require.NoError(t, splitRecords(bufio.NewReader(strings.NewReader(tt.in)), maxScanSize, func(r *Record) {
			got = append(got, string(r.Text))
		}))
		assert.Equal(t, tt.want, got, tt.name)
	}
}
