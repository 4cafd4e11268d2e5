// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// kernelCases are the kernel's lines, one per format string and version
// range (mm/oom_kill.c, mm/memcontrol.c). The 6.18 lines are a real kill
// (testdata/memcg-v1-linux-6.18.dmesg.txt); the others are the format
// strings of the versions named, filled in.
var kernelCases = []struct {
	name, line string
	want       KillReport
}{
	{"invoked 5.0-6.18 (6.18 real)", "[ 2190.840616] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "python3"}},
	{"invoked 4.9, 4.19 nodemask list (dump_header, 4.9.45, 4.19.72)", "[  512.000001] java invoked oom-killer: gfp_mask=0x24201ca(GFP_HIGHUSER_MOVABLE|__GFP_COLD), nodemask=0-1,3, order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "java"}},
	{"invoked 4.14 pr_cont, two spaces (dump_header, 4.14.67; Amazon Linux 2)", "python invoked oom-killer: gfp_mask=0x14000c0(GFP_KERNEL), nodemask=(null),  order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "python"}},
	{"invoked 4.14 first pr_cont piece alone (4.14.67)", "python invoked oom-killer: gfp_mask=0x14000c0(GFP_KERNEL), nodemask=",
		KillReport{Kind: KernelInvoked, Command: "python"}},
	{"invoked 4.6 gfp names (4.6.2)", "python invoked oom-killer: gfp_mask=0x24280ca(GFP_HIGHUSER_MOVABLE|__GFP_ZERO), order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "python"}},
	{"invoked page fault, empty gfp names (4.6+)", "python invoked oom-killer: gfp_mask=0x0(), order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "python"}},
	{"invoked 3.10, RHEL/CentOS 7 (3.10.108, 3.10.0-1160.el7)", "[  512.000001] Web Content invoked oom-killer: gfp_mask=0x280da, order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "Web Content"}},
	{"invoked 2.6.39, RHEL 6.8 (2.6.39.4, 2.6.32-642.el6)", "java invoked oom-killer: gfp_mask=0x201da, order=0, oom_adj=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "java"}},
	{"invoked 2.6.32 (2.6.32.69)", "java invoked oom-killer: gfp_mask=0x201da, order=0, oom_adj=0",
		KillReport{Kind: KernelInvoked, Command: "java"}},
	{"usage v1 (6.18 real)", "[ 2190.840778] memory: usage 65536kB, limit 65536kB, failcnt 111",
		KillReport{Kind: KernelUsage, Usage: 64 << 20, Limit: 64 << 20}},
	{"usage v2 no failcnt", "memory: usage 1048576kB, limit 1048576kB",
		KillReport{Kind: KernelUsage, Usage: 1 << 30, Limit: 1 << 30}},
	{"usage unlimited", "memory: usage 2048kB, limit 9007199254740988kB, failcnt 0",
		KillReport{Kind: KernelUsage, Usage: 2 << 20}},
	{"stats (6.18 real)", "[ 2190.840782] Memory cgroup stats for /xlaoom-bar-29254:",
		KillReport{Kind: KernelStats, LimitCgroup: "/xlaoom-bar-29254"}},
	{"task in 2.6.32-4.19 (mem_cgroup_print_oom_info, 3.10.108, 4.19.72)", "Task in /kubepods/burstable/pod0a1b/abc killed as a result of limit of /kubepods/burstable/pod0a1b/abc",
		KillReport{Kind: KernelTaskIn, Cgroup: "/kubepods/burstable/pod0a1b/abc", LimitCgroup: "/kubepods/burstable/pod0a1b/abc", Constraint: ConstraintCgroup}},
	{"summary memcg (6.18 real)", "[ 2190.840847] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/xlaoom-bar-29254,task_memcg=/xlaoom-bar-29254,task=python3,pid=29330,uid=0",
		KillReport{Kind: KernelSummary, Constraint: ConstraintCgroup, LimitCgroup: "/xlaoom-bar-29254", Cgroup: "/xlaoom-bar-29254", Command: "python3", PID: 29330}},
	{"summary global, node lists", "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,3,global_oom,task_memcg=/system.slice/train.service,task=python,pid=77,uid=1000",
		KillReport{Kind: KernelSummary, Constraint: ConstraintGlobal, Cgroup: "/system.slice/train.service", Command: "python", PID: 77}},
	{"summary cpuset", "oom-kill:constraint=CONSTRAINT_CPUSET,nodemask=(null),cpuset=job1,mems_allowed=1,global_oom,task_memcg=/,task=a,b,pid=9,uid=0",
		KillReport{Kind: KernelSummary, Constraint: ConstraintCpuset, Cgroup: "/", Command: "a,b", PID: 9}},
	{"summary unknown constraint passes", "oom-kill:constraint=CONSTRAINT_NEWTHING,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/,task=x,pid=1,uid=0",
		KillReport{Kind: KernelSummary, Constraint: "newthing", Cgroup: "/", Command: "x", PID: 1}},
	{"summary pr_cont piece", ",oom_memcg=/slurm/uid_1000/job_42,task_memcg=/slurm/uid_1000/job_42/step_0/task_0,task=python,pid=4242,uid=1000",
		KillReport{Kind: KernelSummary, LimitCgroup: "/slurm/uid_1000/job_42", Cgroup: "/slurm/uid_1000/job_42/step_0/task_0", Command: "python", PID: 4242}},
	{"killed 5.4-6.18 memcg (6.18 real)", "[ 2190.840861] Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0",
		KillReport{Kind: KernelKilled, Constraint: ConstraintCgroup, PID: 29330, Command: "python3", AnonRSS: 59136 << 10, FileRSS: 6612 << 10, RSS: (59136 + 6612) << 10}},
	{"killed 5.4-6.18 global (__oom_kill_process, 5.4.6-6.18.2)", "Out of memory: Killed process 1234 (pt_data_worker) total-vm:10485760kB, anon-rss:8388608kB, file-rss:4kB, shmem-rss:1024kB, UID:1000 pgtables:16500kB oom_score_adj:0",
		KillReport{Kind: KernelKilled, Constraint: ConstraintGlobal, PID: 1234, Command: "pt_data_worker", AnonRSS: 8 << 30, FileRSS: 4 << 10, Shmem: 1 << 20, RSS: 8<<30 + 4<<10 + 1<<20}},
	{"killed 5.1-5.3 (__oom_kill_process, 5.1.15-5.3.1)", "Memory cgroup out of memory: Killed process 88 (python3) total-vm:100kB, anon-rss:60kB, file-rss:4kB, shmem-rss:0kB",
		KillReport{Kind: KernelKilled, Constraint: ConstraintCgroup, PID: 88, Command: "python3", AnonRSS: 60 << 10, FileRSS: 4 << 10, RSS: 64 << 10}},
	{"killed 4.6-5.0, RHEL 7.3 (oom_kill_process, 4.6.2-5.0.1, 3.10.0-514.el7)", "Killed process 88 (python3) total-vm:100kB, anon-rss:60kB, file-rss:4kB, shmem-rss:0kB",
		KillReport{Kind: KernelKilled, PID: 88, Command: "python3", AnonRSS: 60 << 10, FileRSS: 4 << 10, RSS: 64 << 10}},
	{"killed 2.6.39-4.4 (oom_kill_process, 2.6.39.4, 3.10.108, 4.4.121)", "Killed process 88 (python3) total-vm:100kB, anon-rss:60kB, file-rss:4kB",
		KillReport{Kind: KernelKilled, PID: 88, Command: "python3", AnonRSS: 60 << 10, FileRSS: 4 << 10, RSS: 64 << 10}},
	{"killed RHEL/CentOS 7.7-7.9 (oom_kill_process, 3.10.0-1062..1160.el7)", "Killed process 42453 (memcg_test_1), UID 0, total-vm:7296kB, anon-rss:96kB, file-rss:164kB, shmem-rss:0kB",
		KillReport{Kind: KernelKilled, PID: 42453, Command: "memcg_test_1", AnonRSS: 96 << 10, FileRSS: 164 << 10, RSS: 260 << 10}},
	{"killed RHEL/CentOS 7.9, comm with a space and parentheses (3.10.0-1160.el7)", "[1234.5] Killed process 77 (Web (Content)), UID 1000, total-vm:8kB, anon-rss:4kB, file-rss:2kB, shmem-rss:1kB",
		KillReport{Kind: KernelKilled, PID: 77, Command: "Web (Content)", AnonRSS: 4 << 10, FileRSS: 2 << 10, Shmem: 1 << 10, RSS: 7 << 10}},
	{"killed RHEL/CentOS 6.8 (mm/oom_kill.c, 2.6.32-642.el6)", "Killed process 3001, UID 500, (java) total-vm:2097152kB, anon-rss:1048576kB, file-rss:128kB",
		KillReport{Kind: KernelKilled, PID: 3001, Command: "java", AnonRSS: 1 << 30, FileRSS: 128 << 10, RSS: 1<<30 + 128<<10}},
	{"select memcg 2.6.39-5.0, RHEL 6-8 (oom_kill_process, 4.4.121-5.0.1)", "Memory cgroup out of memory: Kill process 4242 (python) score 1000 or sacrifice child",
		KillReport{Kind: KernelSelect, Constraint: ConstraintCgroup, PID: 4242, Command: "python"}},
	{"select global 2.6.39-5.0 (oom_kill_process, 3.10.108, 3.10.0-1160.el7)", "[2858609.598568] Out of memory: Kill process 9811 (python3) score 911 or sacrifice child",
		KillReport{Kind: KernelSelect, Constraint: ConstraintGlobal, PID: 9811, Command: "python3"}},
	{"select allocating task 2.6.39-5.0 (oom_kill_process)", "Out of memory (oom_kill_allocating_task): Kill process 9811 (python3) score 0 or sacrifice child",
		KillReport{Kind: KernelSelect, Constraint: ConstraintGlobal, PID: 9811, Command: "python3"}},
	{"reaper 4.6-6.18 (oom_reap_task_mm, 4.6.2-6.18.2)", "oom_reaper: reaped process 29330 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
		KillReport{Kind: KernelReaped, PID: 29330, Command: "python3"}},
	{"group 4.19-6.18 (mem_cgroup_print_oom_group, 4.19.72-6.18.2)", "Tasks in /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice/cri-containerd-aaaaaaaaaaaa.scope are going to be killed due to memory.oom.group set",
		KillReport{Kind: KernelGroup, Constraint: ConstraintCgroup, LimitCgroup: "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice/cri-containerd-aaaaaaaaaaaa.scope"}},
	{"kmsg header", "6,1234,2190840861,-;Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0",
		KillReport{Kind: KernelKilled, Constraint: ConstraintCgroup, PID: 29330, Command: "python3", AnonRSS: 59136 << 10, FileRSS: 6612 << 10, RSS: (59136 + 6612) << 10}},
	{"journalctl -k", "Nov 27 18:48:46 node-7 kernel: Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0",
		KillReport{Kind: KernelKilled, Constraint: ConstraintCgroup, PID: 29330, Command: "python3", AnonRSS: 59136 << 10, FileRSS: 6612 << 10, RSS: (59136 + 6612) << 10}},
	{"dmesg -T", "[Fri Nov 27 18:48:46 2026] oom_reaper: reaped process 29330 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
		KillReport{Kind: KernelReaped, PID: 29330, Command: "python3"}},
	{"syslog with dmesg stamp", "Nov 27 18:48:46 node-7 kernel: [ 2190.840778] memory: usage 65536kB, limit 65536kB, failcnt 111",
		KillReport{Kind: KernelUsage, Usage: 64 << 20, Limit: 64 << 20}},
}

func TestKernelLines(t *testing.T) {
	for _, c := range kernelCases {
		got, ok := Parse(c.line)
		if !ok {
			t.Errorf("%s: not recognised: %q", c.name, c.line)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
		if !got.Kind.Kernel() || got.Kind.Source() != SourceKernel {
			t.Errorf("%s: kind %v is not the kernel's", c.name, got.Kind)
		}
	}
}

// TestKernelHeaderTimes: the headers' times, which the joiner's quiet
// interval reads.
func TestKernelHeaderTimes(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"[ 2190.840861] x", "1970-01-01T00:36:30.840861Z"},
		{"6,1234,2190840861,-;x", "1970-01-01T00:36:30.840861Z"},
		{"[Fri Nov 27 18:48:46 2026] x", "2026-11-27T18:48:46Z"},
		{"Nov 27 18:48:46 node-7 kernel: x", "0000-11-27T18:48:46Z"},
		{"2026-11-27T18:48:46+0000 node-7 kernel: x", "2026-11-27T18:48:46Z"},
	} {
		l := logheader.SplitKernel(c.line)
		if l.Text != "x" || l.At.Format("2006-01-02T15:04:05.999999Z07:00") != c.want {
			t.Errorf("%q: got %q at %s, want x at %s", c.line, l.Text, l.At.Format("2006-01-02T15:04:05.999999Z07:00"), c.want)
		}
	}
}

// TestKernelLinesBare: lines the kernel prints that hold none of MayContain's
// words, read by ParseLine once a caller has its own reason to read them.
func TestKernelLinesBare(t *testing.T) {
	for _, c := range []struct {
		name, line string
		want       KillReport
	}{
		{"select 2.6.32 (oom_kill_process, 2.6.32.69)", "Out of memory: kill process 3001 (java) score 512 or a child",
			KillReport{Kind: KernelSelect, Constraint: ConstraintGlobal, PID: 3001, Command: "java"}},
		{"select 2.6.32 memcg (2.6.32.69)", "Memory cgroup out of memory: kill process 3001 (java) score 512 or a child",
			KillReport{Kind: KernelSelect, Constraint: ConstraintCgroup, PID: 3001, Command: "java"}},
		{"select 2.6.32 MPOL_BIND (2.6.32.69)", "No available memory (MPOL_BIND): kill process 3001 (java) score 512 or a child",
			KillReport{Kind: KernelSelect, Constraint: ConstraintMemoryPolicy, PID: 3001, Command: "java"}},
	} {
		if got, ok := ParseLine(c.line); !ok || got != c.want {
			t.Errorf("%s:\n got %+v (%v)\nwant %+v", c.name, got, ok, c.want)
		}
	}
}

// kernelLookalikes are kernel lines of an OOM that are no statement, and
// kernel words in another program's line: none is read.
var kernelLookalikes = []string{
	"Kill process 3002 (java) sharing same memory",                                                      // RHEL 6/7, 3.10: the victim's mm's other users
	"Memory cgroup out of memory: OOM victim 29330 (python3) is already exiting. Skip killing the task", // 5.10+
	"oom_reaper: unable to reap pid:29330 (python3)",
	"oom killer 29330 (python3) has mm pinned by 29331 (python3)",
	"Killed process 4242 (python)", // 2.6.32.69's bare kill line: any supervisor's words too
	"Apr 29 14:55:41 node-7 python3[4242]: Memory cgroup out of memory: Killed process 1 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0",
	"2024-04-29T14:55:41.678628+02:00 node-7 supervisor[9]: Killed process 1 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB",
	"user  :warn  : [ 2190.840861] Killed process 1 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB",
	`{"_TRANSPORT":"stdout","MESSAGE":"Killed process 1 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB","__REALTIME_TIMESTAMP":"1714395341678628"}`,
	"worker 3: the kernel said Killed process 1 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB",
	"INFO: grep 'Out of memory: Kill process' /var/log/messages",
	"Out of memory: Kill process in the docs, score it or sacrifice child",
}

func TestKernelLookalikes(t *testing.T) {
	for _, l := range kernelLookalikes {
		if s, ok := Parse(l); ok {
			t.Errorf("read a look-alike as %v: %q", s.Kind, l)
		}
	}
}

// TestKernelFixtures: each kernel log of testdata, one per kernel version
// and per header family (testdata/README.md names its source), read as
// explain reads it, is one kill with the victim, RSS, limit, constraint and
// cgroups its lines print. pre5.1/ holds the kernels whose selection and
// "Task in" lines the processor's prefilter does not pass yet.
func TestKernelFixtures(t *testing.T) {
	const v1 = "/xlaoom-bar-29254"
	real618 := Kill{KillReport: KillReport{Kind: KernelKilled, PID: 29330, Command: "python3", RSS: (59136 + 6612) << 10,
		AnonRSS: 59136 << 10, FileRSS: 6612 << 10, Limit: 64 << 20, Usage: 64 << 20, Constraint: ConstraintCgroup, Cgroup: v1, LimitCgroup: v1}}
	want := map[string]Kill{
		"pre5.1/memcg-v1-linux-3.10.0-1160.el7.dmesg.txt": {KillReport: KillReport{Kind: KernelKilled, PID: 42453, Command: "memcg_test_1",
			RSS: 260 << 10, AnonRSS: 96 << 10, FileRSS: 164 << 10, Limit: 1 << 20, Usage: 1 << 20, Constraint: ConstraintCgroup,
			Cgroup: "/memcg_test", LimitCgroup: "/memcg_test"}},
		"pre5.1/global-linux-4.14-amzn2.journalctl-short.txt": {KillReport: KillReport{Kind: KernelKilled, PID: 30512, Command: "python",
			RSS: (63958776 + 1680) << 10, AnonRSS: 63958776 << 10, FileRSS: 1680 << 10, Constraint: ConstraintGlobal}},
		"memcg-v2-linux-5.4-ubuntu20.04.syslog.txt": {KillReport: KillReport{Kind: KernelKilled, PID: 88120, Command: "pt_data_worker",
			RSS: (33550100 + 3980) << 10, AnonRSS: 33550100 << 10, FileRSS: 3980 << 10, Limit: 32 << 30, Usage: 32 << 30, Constraint: ConstraintCgroup,
			Cgroup: "/system.slice/slurmstepd.scope/job_8841/step_0/user/task_0", LimitCgroup: "/system.slice/slurmstepd.scope/job_8841"}},
	}
	files, _ := filepath.Glob("testdata/*.txt")
	pre, _ := filepath.Glob("testdata/pre5.1/*.txt")
	if len(files) < 15 || len(pre) < 2 {
		t.Fatalf("kernel logs: %d and %d pre-5.1", len(files), len(pre))
	}
	for _, f := range append(files, pre...) {
		name := strings.TrimPrefix(f, "testdata/")
		if strings.HasPrefix(name, "select-only") {
			continue // selection lines alone, one kill each: join_test.go
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kills := killsOf(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
		w, ok := want[name]
		if !ok {
			w = real618 // the real 6.18 kill under another header
		}
		if len(kills) != 1 {
			t.Errorf("%s: %d kills, want 1", name, len(kills))
			continue
		}
		got := kills[0]
		got.Ref, got.Reason = 0, ""
		if got.KillReport != w.KillReport || !got.Complete || got.Tasks != 1 {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
	}
}
