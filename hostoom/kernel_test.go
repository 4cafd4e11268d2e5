// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
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
	{"invoked 4.8+ (6.18 real)", "[ 2190.840616] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "python3"}},
	{"invoked 4.7-4.9 nodemask", "[  512.000001] java invoked oom-killer: gfp_mask=0x24201ca(GFP_HIGHUSER_MOVABLE|__GFP_COLD), nodemask=0, order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "java"}},
	{"invoked 3.x", "[  512.000001] Web Content invoked oom-killer: gfp_mask=0x280da, order=0, oom_score_adj=0",
		KillReport{Kind: KernelInvoked, Command: "Web Content"}},
	{"usage v1 (6.18 real)", "[ 2190.840778] memory: usage 65536kB, limit 65536kB, failcnt 111",
		KillReport{Kind: KernelUsage, Usage: 64 << 20, Limit: 64 << 20}},
	{"usage v2 no failcnt", "memory: usage 1048576kB, limit 1048576kB",
		KillReport{Kind: KernelUsage, Usage: 1 << 30, Limit: 1 << 30}},
	{"usage unlimited", "memory: usage 2048kB, limit 9007199254740988kB, failcnt 0",
		KillReport{Kind: KernelUsage, Usage: 2 << 20}},
	{"stats (6.18 real)", "[ 2190.840782] Memory cgroup stats for /xlaoom-bar-29254:",
		KillReport{Kind: KernelStats, LimitCgroup: "/xlaoom-bar-29254"}},
	{"task in, before 4.19", "Task in /kubepods/burstable/pod0a1b/abc killed as a result of limit of /kubepods/burstable/pod0a1b/abc",
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
	{"killed 5.4+ memcg (6.18 real)", "[ 2190.840861] Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0",
		KillReport{Kind: KernelKilled, Constraint: ConstraintCgroup, PID: 29330, Command: "python3", AnonRSS: 59136 << 10, FileRSS: 6612 << 10, RSS: (59136 + 6612) << 10}},
	{"killed 5.4+ global", "Out of memory: Killed process 1234 (pt_data_worker) total-vm:10485760kB, anon-rss:8388608kB, file-rss:4kB, shmem-rss:1024kB, UID:1000 pgtables:16500kB oom_score_adj:0",
		KillReport{Kind: KernelKilled, Constraint: ConstraintGlobal, PID: 1234, Command: "pt_data_worker", AnonRSS: 8 << 30, FileRSS: 4 << 10, Shmem: 1 << 20, RSS: 8<<30 + 4<<10 + 1<<20}},
	{"killed 5.1-5.3 (no UID)", "Memory cgroup out of memory: Killed process 88 (python3) total-vm:100kB, anon-rss:60kB, file-rss:4kB, shmem-rss:0kB",
		KillReport{Kind: KernelKilled, Constraint: ConstraintCgroup, PID: 88, Command: "python3", AnonRSS: 60 << 10, FileRSS: 4 << 10, RSS: 64 << 10}},
	{"killed 4.5-5.0 (no prefix)", "Killed process 88 (python3) total-vm:100kB, anon-rss:60kB, file-rss:4kB, shmem-rss:0kB",
		KillReport{Kind: KernelKilled, PID: 88, Command: "python3", AnonRSS: 60 << 10, FileRSS: 4 << 10, RSS: 64 << 10}},
	{"killed 3.x-4.4 (no shmem)", "Killed process 88 (python3) total-vm:100kB, anon-rss:60kB, file-rss:4kB",
		KillReport{Kind: KernelKilled, PID: 88, Command: "python3", AnonRSS: 60 << 10, FileRSS: 4 << 10, RSS: 64 << 10}},
	{"killed allocating task", "Out of memory (oom_kill_allocating_task): Killed process 5 (a b) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0",
		KillReport{Kind: KernelKilled, Constraint: ConstraintGlobal, PID: 5, Command: "a b", AnonRSS: 4 << 10, RSS: 4 << 10}},
	{"select before 5.1", "Memory cgroup out of memory: Kill process 4242 (python) score 1000 or sacrifice child",
		KillReport{Kind: KernelSelect, Constraint: ConstraintCgroup, PID: 4242, Command: "python"}},
	{"reaper 4.6+", "oom_reaper: reaped process 29330 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
		KillReport{Kind: KernelReaped, PID: 29330, Command: "python3"}},
	{"group 4.19+", "Tasks in /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice/cri-containerd-aaaaaaaaaaaa.scope are going to be killed due to memory.oom.group set",
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
