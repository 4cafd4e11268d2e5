// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// killsOf reads a log's lines as xlaoom explain does: the header split off,
// each statement parsed and joined.
func killsOf(lines []string) []Kill {
	var j Joiner
	var out []Kill
	for _, l := range lines {
		h := logheader.SplitKernel(l)
		if s, ok := ParseLine(h.Text); ok {
			out = append(out, j.Add(h.At, s)...)
		}
	}
	return append(out, j.Flush()...)
}

// TestKillPerSource: one kill of each source, from its lines to its owner,
// retry verdict, cause and first advice. The kernel's is the real kill of
// testdata; the others are the sources' format strings filled in.
func TestKillPerSource(t *testing.T) {
	dmesg, err := os.ReadFile("testdata/memcg-v1-linux-6.18.dmesg.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		lines   []string
		kind    Kind
		source  string
		owner   OwnerKind
		verdict string
		cause   string
		advice  string // in the first advice
	}{
		{"kernel, memory cgroup v1 (Linux 6.18)", strings.Split(strings.TrimSpace(string(dmesg)), "\n"),
			KernelKilled, SourceKernel, OwnerCgroup, oom.RetryFutile,
			"python3 (pid 29330) was killed when its cgroup reached its memory limit of 64.00 MiB", "it held 64.21 MiB of a 64.00 MiB limit"},
		{"kernel, node out of memory", []string{
			"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,3,global_oom,task_memcg=/system.slice/train.service,task=python,pid=77,uid=1000",
			"Out of memory: Killed process 77 (python) total-vm:10485760kB, anon-rss:8388608kB, file-rss:4kB, shmem-rss:1024kB, UID:1000 pgtables:16500kB oom_score_adj:0"},
			KernelKilled, SourceKernel, OwnerUnit, oom.RetryMayHelp,
			"python (pid 77) was killed because the node ran low on memory (kernel)", "a node of its own"},
		{"slurmstepd 23.02+", []string{"slurmstepd: error: Detected 1 oom_kill event in StepId=8841.0. Some of the step tasks have been OOM Killed."},
			SlurmOOM, SourceSlurm, OwnerSlurm, oom.RetryUnknown, "a process was killed by the kernel's OOM killer", "Slurm --mem"},
		{"Ray's memory monitor, an actor", []string{"Memory on the node (IP: 10.0.3.7, ID: 4f2b9c) where the actor (actor ID: 9a1c, name=Trainer.__init__, pid=700, memory used=1.50GB) was running was 30.12GB / 31.35GB (0.960778), which exceeds the memory usage threshold of 0.95."},
			RayOOM, SourceRay, OwnerNode, oom.RetryMayHelp, "Trainer.__init__ (pid 700) was killed because the node ran low on memory (ray)", "fewer jobs per node"},
		{"kubelet eviction 1.19+", []string{"The node was low on resource: memory. Threshold quantity: 100Mi, available: 91236Ki. Container trainer was using 31457280Ki, request is 16Gi, has larger consumption of memory. "},
			Eviction, SourceKubernetes, OwnerNode, oom.RetryMayHelp, "a process was killed because the node ran low on memory (kubernetes)", "Guaranteed QoS"},
		{"earlyoom 1.9", []string{`sending SIGTERM to process 4242 uid 1000 "python3": oom_score 912, oom_score_adj 0, VmRSS 30122 MiB, cmdline "python3 train.py"`},
			EarlyoomKill, SourceEarlyoom, OwnerNode, oom.RetryMayHelp, "python3 (pid 4242) was killed because the node ran low on memory (earlyoom)", "another process held"},
		{"systemd-oomd 253+", []string{"Marked /system.slice/train.service for killing due to memory pressure for /system.slice being 71.00% > 60.00% for > 30s with reclaim activity"},
			OomdKill, SourceOomd, OwnerUnit, oom.RetryMayHelp, "a process was killed because the node ran low on memory (systemd-oomd)", "a node of its own"},
		{"systemd's unit message", []string{"train.service: A process of this unit has been killed by the OOM killer."},
			UnitOOM, SourceSystemd, OwnerUnit, oom.RetryUnknown, "a process was killed by the kernel's OOM killer", "systemd MemoryMax="},
	}
	for _, c := range cases {
		kills := killsOf(c.lines)
		if len(kills) != 1 {
			t.Errorf("%s: %d kills", c.name, len(kills))
			continue
		}
		k := kills[0]
		verdict, rule := k.Retry()
		if k.Kind != c.kind || k.Kind.Source() != c.source || k.Owner().Kind != c.owner || verdict != c.verdict || (rule == "") != (verdict == oom.RetryUnknown) {
			t.Errorf("%s: %s from %s, owner %+v, verdict %s (%q)", c.name, k.Kind, k.Kind.Source(), k.Owner(), verdict, rule)
		}
		if got := k.Cause(); got != c.cause {
			t.Errorf("%s: cause %q\nwant %q", c.name, got, c.cause)
		}
		if a := k.Advice(); len(a) < 2 || !strings.Contains(a[0], c.advice) {
			t.Errorf("%s: advice %q lacks %q", c.name, a, c.advice)
		}
		if k.Kind.Echo() {
			t.Errorf("%s: taken for an echo", c.name)
		}
	}
}

// TestSrunEchoesStepd: srun repeats the kill slurmstepd reports.
func TestSrunEchoesStepd(t *testing.T) {
	s, ok := ParseLine("srun: error: gpu-node-17: task 3: Out Of Memory")
	if !ok || s.Kind != SrunOOM || !s.Kind.Echo() || s.Kind.String() != "srun_oom" || s.Kind.Source() != SourceSlurm {
		t.Errorf("srun's line: %+v (%v)", s, ok)
	}
	if Kind(200).String() != "unknown" || Kind(200).Source() != "" {
		t.Error("an unknown kind")
	}
}

// TestPodKillOwner: a container's OOMKilled last state names its pod.
func TestPodKillOwner(t *testing.T) {
	const pod = `{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"train-0","uid":"8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f"},
	"status":{"containerStatuses":[{"name":"trainer","restartCount":1,"state":{"running":{}},
	"lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled","finishedAt":"2026-11-27T18:48:46Z","containerID":"containerd://4f1c2b3a"}}}]}}}`
	var obj map[string]any
	if err := json.Unmarshal([]byte(pod), &obj); err != nil {
		t.Fatal(err)
	}
	var j Joiner
	var kills []Kill
	for _, s := range PodKills(obj) {
		kills = append(kills, j.Add(time.Time{}, s)...)
	}
	if len(kills) != 1 {
		t.Fatalf("%d kills", len(kills))
	}
	k := kills[0]
	o := k.Owner()
	if o.Kind != OwnerPod || o.PodUID != "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f" || o.ContainerID != "4f1c2b3a" || k.Kind.Source() != SourceKubernetes {
		t.Errorf("owner %+v of %s", o, k.Kind)
	}
	if v, _ := k.Retry(); v != oom.RetryUnknown {
		t.Errorf("a container's OOMKilled alone: %s", v)
	}
}
