// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// textKills reads a text's lines in order, as explain feeds them.
func textKills(text string) []TextKill {
	r := TextReader{YAML: yaml.Unmarshal}
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		r.Line(int64(i+1), l)
	}
	return r.End()
}

// wantText is what a kill of a text must carry.
type wantText struct {
	line                        int64
	kind                        Kind
	pod, ns, container, node    string
	restarts, limit, rss, count int64
	pid                         int64
	job, step, verdict          string
}

func checkTextKills(t *testing.T, got []TextKill, want []wantText) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d kills, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		k := got[i]
		verdict, _ := k.Retry()
		g := wantText{k.Ref, k.Kind, k.Pod, k.Namespace, k.Container, k.Node, k.Restarts, k.Limit, k.RSS, k.Count,
			k.PID, k.Job, k.Step, verdict}
		if g != w {
			t.Errorf("kill %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

// TestTextKillsFixtures: every kubectl and Slurm fixture, each laid out as its version's printer lays it out
// (kubectl: pkg/describe and pkg/printers through text/tabwriter; sacct: print_fields; seff: contribs/seff).
func TestTextKillsFixtures(t *testing.T) {
	const gi = 1 << 30
	tests := []struct {
		file string // under testdata
		src  string
		want []wantText
	}{
		{"kubectl/describe-pod-oomkilling-1.28.txt", "kubectl 1.28 describe pod; node-problem-detector's OOMKilling event (kernel 5.4+ line)",
			// the Last State and the OOMKilling event of the same container: one kill; the kernel's line decides
			[]wantText{{28, KernelKilled, "train-llm-0", "ml", "trainer", "gke-tpu-pool-1-3f2a", 3, 8 * gi, (8371048 + 17216) << 10, 3, 41213, "", "", oom.RetryFutile}}},
		{"kubectl/describe-pod-oomkilled-1.15.txt", "kubectl 1.15 describe pod (From \"kubelet, <node>\"); a Job's pod",
			// OOMKilled alone: whose limit was hit is not said
			[]wantText{{23, PodOOMKilled, "preprocess-x7k2q", "default", "preprocess", "worker-2", 0, 2 * gi, 0, 0, 0, "", "", oom.RetryUnknown}}},
		{"kubectl/describe-pod-evicted-1.28.txt", "kubectl 1.28 describe pod; kubelet 1.28 eviction message",
			// the pod's Reason and its Evicted event: one kill
			[]wantText{{11, Eviction, "dataloader-5d8f7c9b6-qwx4z", "ml", "loader", "gpu-node-7", -1, 4 * gi, 14572884 << 10, 0, 0, "", "", oom.RetryMayHelp}}},
		{"kubectl/describe-pod-lookalikes-1.28.txt", "kubectl 1.28 describe pod: exit 137 (Error), an ephemeral-storage eviction, Insufficient memory",
			nil},
		{"kubectl/describe-node-systemoom-1.28.txt", "kubectl 1.28 describe node; kubelet 1.28 SystemOOM",
			[]wantText{{17, NodeSystemOOM, "", "", "", "gpu-node-7", -1, 0, 0, 0, 218734, "", "", oom.RetryMayHelp}}},
		{"kubectl/get-pods-wide-1.28.txt", "kubectl 1.28 get pods -A -o wide (RESTARTS \"3 (9m ago)\", Init:OOMKilled)",
			[]wantText{
				{2, PodOOMKilled, "train-llm-0", "ml", "", "gke-tpu-pool-1-3f2a", 3, 0, 0, 0, 0, "", "", oom.RetryUnknown},
				{4, PodOOMKilled, "prep-4kq9d", "ml", "", "gke-tpu-pool-1-a7b1", 0, 0, 0, 0, 0, "", "", oom.RetryUnknown},
			}},
		{"kubectl/get-pods-1.15.txt", "kubectl 1.15 get pods",
			[]wantText{{2, PodOOMKilled, "preprocess-x7k2q", "", "", "", 0, 0, 0, 0, 0, "", "", oom.RetryUnknown}}},
		{"kubectl/get-events-1.28.txt", "kubectl 1.28 get events (LAST SEEN \"5m (x3 over 12m)\")",
			[]wantText{
				{3, KernelKilled, "", "", "", "gke-tpu-pool-1-3f2a", -1, 0, (8371048 + 17216) << 10, 3, 41213, "", "", oom.RetryFutile},
				{5, NodeSystemOOM, "", "", "", "gpu-node-7", -1, 0, 0, 0, 218734, "", "", oom.RetryMayHelp},
				{6, Eviction, "dataloader-5d8f7c9b6-qwx4z", "", "loader", "", -1, 4 * gi, 14572884 << 10, 0, 0, "", "", oom.RetryMayHelp},
			}},
		{"kubectl/get-events-1.13.txt", "kubectl 1.13 get events (COUNT, NAME, KIND); kernel before 5.1; kubelet 1.13 SystemOOM",
			[]wantText{
				{2, KernelSelect, "", "", "", "gpu-node-2", -1, 0, 0, 4, 30125, "", "", oom.RetryFutile},
				{3, NodeSystemOOM, "", "", "", "gpu-node-2", -1, 0, 0, 0, 0, "", "", oom.RetryMayHelp},
			}},
		{"kubectl/get-pod-yaml-1.28.txt", "kubectl 1.28 get pod -o yaml",
			[]wantText{{1, PodOOMKilled, "train-llm-0", "ml", "trainer", "gke-tpu-pool-1-3f2a", 3, 8 * gi, 0, 0, 0, "", "", oom.RetryUnknown}}},
		{"kubectl/get-pods-json-1.28.txt", "kubectl 1.28 get pods -o json (a List; exit 137 Error is no kill)",
			[]wantText{{1, PodOOMKilled, "preprocess-x7k2q", "default", "preprocess", "worker-2", 0, 2 * gi, 0, 0, 0, "", "", oom.RetryUnknown}}},
		{"slurm/sacct-default-23.02.txt", "sacct 23.02 default columns: OUT_OF_ME+ cut; the job's row joins its batch step's",
			[]wantText{
				{4, SlurmOOM, "", "", "", "", -1, 0, 0, 0, 0, "4821337", "batch", oom.RetryUnknown},
				{9, SlurmOOM, "", "", "", "", -1, 0, 0, 0, 0, "4821342", "", oom.RetryUnknown},
			}},
		{"slurm/sacct-parsable-23.02.txt", "sacct 23.02 -P -o JobID,JobName,State,ExitCode,ReqMem,MaxRSS,AllocCPUS,NodeList",
			[]wantText{
				{3, SlurmOOM, "", "", "", "gpu-a17", -1, 64 * gi, 66991820 << 10, 0, 0, "4821337", "batch", oom.RetryUnknown},
				{5, SlurmOOM, "", "", "", "gpu-a17", -1, 64 * gi, 65873216 << 10, 0, 0, "4821337", "0", oom.RetryUnknown},
			}},
		{"slurm/seff-2.1.txt", "seff 2.1 (contribs/seff, Slurm 17.02+): an OUT_OF_MEMORY job and a FAILED one",
			[]wantText{{4, SlurmOOM, "", "", "", "", -1, 64 * gi, 68601365135 /* 63.89 GiB */, 0, 0, "4821337", "", oom.RetryUnknown}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			checkTextKills(t, textKills(string(b)), tt.want)
		})
	}
}

// TestTextKillsLookalikes: text that holds the words and is no kill, each line as its printer writes it.
func TestTextKillsLookalikes(t *testing.T) {
	tests := []struct{ name, text string }{
		{"log line naming OOMKilled", "2024-04-29 14:55:41,678 INFO pod train-0 status OOMKilled? checking\n"},
		{"get pods: CrashLoopBackOff after a kill (kubectl 1.28)",
			"NAME          READY   STATUS             RESTARTS      AGE\ntrain-llm-1   0/1     CrashLoopBackOff   4 (62s ago)   15m\n"},
		{"get events: Killing, BackOff (kubectl 1.28)",
			"LAST SEEN   TYPE      REASON    OBJECT            MESSAGE\n4m          Warning   BackOff   pod/train-llm-0   Back-off restarting failed container trainer\n"},
		{"sacct: FAILED, CANCELLED (sacct 23.02 -P)",
			"JobID|State|ExitCode|\n4821345|FAILED|1:0|\n4821346|CANCELLED by 1000|0:15|\n"},
		{"seff: TIMEOUT (seff 2.1)", "Job ID: 4821350\nState: TIMEOUT (exit code 0)\nMemory Utilized: 63.89 GB\nMemory Efficiency: 99.82% of 64.00 GB\n"},
		{"describe: the word in a Message (kubectl 1.28)",
			"Name:         a\nNamespace:    b\nStatus:       Running\nEvents:\n  Type    Reason   Age   From    Message\n  ----    ------   ----  ----    -------\n  Normal  Pulled   1m    kubelet  image oomkiller:OOMKilled already present\n"},
		{"yaml: a ConfigMap whose data says OOMKilled", "apiVersion: v1\nkind: ConfigMap\ndata:\n  reason: OOMKilled\nmetadata:\n  name: x\n"},
		{"malformed yaml", "apiVersion: v1\nkind: Pod\nstatus: [unclosed\n"},
		{"malformed json", "{\n  \"kind\": \"Pod\",\n"},
	}
	for _, tt := range tests {
		if got := textKills(tt.text); len(got) != 0 {
			t.Errorf("%s: %d kills: %+v", tt.name, len(got), got)
		}
	}
}

// TestTextReaderCovers: a document's lines are covered, a log's are not; a kernel line (Linux 6.18's kill line,
// its header off) after a seff text is the log's.
func TestTextReaderCovers(t *testing.T) {
	var r TextReader
	lines := []string{"plain log line", "JobID|State|", "4821337|OUT_OF_MEMORY|", "", "another log line",
		"Job ID: 4821337", "State: OUT_OF_MEMORY (exit code 0)",
		"Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0",
		"NAME          READY   STATUS      RESTARTS   AGE", "train-llm-0   0/1     OOMKilled   0          2m",
		"[ 2190.840861] Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0"}
	for i, l := range lines {
		r.Line(int64(i+1), l)
	}
	if kills := r.End(); len(kills) != 3 {
		t.Fatalf("%d kills", len(kills))
	}
	for n, want := range map[int64]bool{1: false, 2: true, 3: true, 4: false, 5: false, 6: true, 7: true, 8: false, 9: true, 10: true, 11: false} {
		if r.Covers(n) != want {
			t.Errorf("Covers(%d) = %v", n, !want)
		}
	}
}

// TestTextReaderWithoutYAML: with no YAML decoder, YAML is passed over and JSON still read.
func TestTextReaderWithoutYAML(t *testing.T) {
	for file, want := range map[string]int{"get-pod-yaml-1.28.txt": 0, "get-pods-json-1.28.txt": 1} {
		b, err := os.ReadFile("testdata/kubectl/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var r TextReader
		for i, l := range strings.Split(string(b), "\n") {
			r.Line(int64(i+1), l)
		}
		if got := len(r.End()); got != want {
			t.Errorf("%s: %d kills, want %d", file, got, want)
		}
	}
}
