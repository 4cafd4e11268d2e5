// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import "testing"

// sourceCases are the user-space killers', Kubernetes', Slurm's and Ray's
// statements, one per format string and version range (see each pattern's
// comment for the source file).
var sourceCases = []struct {
	name, line string
	want       KillReport
}{
	{"systemd-oomd pressure v248-v252", "Killed /user.slice/user-1000.slice/user@1000.service/app.slice/train.scope due to memory pressure for /user.slice/user-1000.slice/user@1000.service being 62.34% > 50.00% for > 20s with reclaim activity",
		KillReport{Kind: OomdKill, Cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/train.scope", LimitCgroup: "/user.slice/user-1000.slice/user@1000.service", Constraint: ConstraintCgroup, Reason: "memory pressure 62.34% > 50.00%"}},
	{"systemd-oomd pressure v253+", "Marked /system.slice/train.service for killing due to memory pressure for /system.slice being 71.00% > 60.00% for > 30s with reclaim activity",
		KillReport{Kind: OomdKill, Cgroup: "/system.slice/train.service", LimitCgroup: "/system.slice", Constraint: ConstraintCgroup, Reason: "memory pressure 71.00% > 60.00%"}},
	{"systemd-oomd swap v250+", "Killed /system.slice/train.service due to memory used (16372150272) / total (16642998272) and swap used (4294967296) / total (4294967296) being more than 90.00%",
		KillReport{Kind: OomdKill, Cgroup: "/system.slice/train.service", Constraint: ConstraintGlobal, Reason: "memory used", Usage: 16372150272, Limit: 16642998272}},
	{"systemd-oomd memory used v253+ (knowledge)", "Marked /user.slice/user-1000.slice/user@1000.service/app.slice/train.scope for killing due to memory used (16372150272) / total (16642998272) and swap used (4294967296) / total (4294967296) being more than 85.57%",
		KillReport{Kind: OomdKill, Cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/train.scope", Constraint: ConstraintGlobal, Reason: "memory used", Usage: 16372150272, Limit: 16642998272}},
	{"systemd kernel kill v243+", "train.service: A process of this unit has been killed by the OOM killer.",
		KillReport{Kind: UnitOOM, Cgroup: "train.service", Reason: "kernel"}},
	{"systemd oomd kill v248+", "train.service: systemd-oomd killed 3 process(es) in this unit.",
		KillReport{Kind: UnitOOM, Cgroup: "train.service", Reason: "systemd-oomd", Count: 3}},
	// earlyoom, kill.c's format string at each tag, filled in.
	{"earlyoom v1.9.0 (kill.c, v1.9.0)", `sending SIGTERM to process 4242 uid 1000 "python3": oom_score 912, oom_score_adj 0, VmRSS 30122 MiB, cmdline "python3 train.py"`,
		KillReport{Kind: EarlyoomKill, PID: 4242, Command: "python3", RSS: 30122 << 20, Constraint: ConstraintGlobal, Reason: "SIGTERM"}},
	{"earlyoom v1.9.0 SIGKILL, negative adj (kill.c, v1.9.0)", `sending SIGKILL to process 4242 uid 0 "python3": oom_score 1, oom_score_adj -500, VmRSS 30122 MiB, cmdline ""`,
		KillReport{Kind: EarlyoomKill, PID: 4242, Command: "python3", RSS: 30122 << 20, Constraint: ConstraintGlobal, Reason: "SIGKILL"}},
	{"earlyoom v1.8-v1.8.2 (kill.c)", `sending SIGTERM to process 4242 uid 1000 "python3": oom_score 912, VmRSS 30122 MiB, cmdline "python3 train.py"`,
		KillReport{Kind: EarlyoomKill, PID: 4242, Command: "python3", RSS: 30122 << 20, Constraint: ConstraintGlobal, Reason: "SIGTERM"}},
	{"earlyoom v1.4-v1.7 (kill.c)", `sending SIGKILL to process 4242 uid 1000 "python3": badness 912, VmRSS 30122 MiB`,
		KillReport{Kind: EarlyoomKill, PID: 4242, Command: "python3", RSS: 30122 << 20, Constraint: ConstraintGlobal, Reason: "SIGKILL"}},
	{"earlyoom v1.3-v1.3.1 (kill.c)", `sending SIGTERM to process 4242 "python3": badness 912, VmRSS 30122 MiB`,
		KillReport{Kind: EarlyoomKill, PID: 4242, Command: "python3", RSS: 30122 << 20, Constraint: ConstraintGlobal, Reason: "SIGTERM"}},
	{"kubelet SystemOOM", "System OOM encountered, victim process: python3, pid: 4242",
		KillReport{Kind: NodeSystemOOM, Command: "python3", PID: 4242, Constraint: ConstraintGlobal, Cgroup: "/"}},
	{"kubelet eviction v1.19+", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 91236Ki. Container trainer was using 31457280Ki, request is 16Gi, has larger consumption of memory. ",
		KillReport{Kind: Eviction, Constraint: ConstraintGlobal, Container: "trainer", RSS: 31457280 << 10, Limit: 16 << 30, Reason: "threshold 100Mi, available 91236Ki"}},
	{"kubelet SystemOOM log line, structured (knowledge)", `I1127 18:48:46.123456    2231 oom_watcher_linux.go:80] "Got sys oom event" event="&{Pid:4242 ProcessName:python3 TimeOfDeath:2026-11-27 18:48:46.118 +0000 UTC ContainerName:/ VictimContainerName:/ Constraint:CONSTRAINT_NONE}"`,
		KillReport{Kind: NodeSystemOOM, Command: "python3", PID: 4242, Constraint: ConstraintGlobal, Cgroup: "/"}},
	{"kubelet SystemOOM log line, unquoted (knowledge)", `I1127 18:48:46.123456    2231 oom_watcher_linux.go:80] "Got sys oom event" event=&{Pid:4242 ProcessName:python3 TimeOfDeath:2026-11-27 18:48:46.118 +0000 UTC ContainerName:/kubepods VictimContainerName:/ Constraint:CONSTRAINT_CPUSET}`,
		KillReport{Kind: NodeSystemOOM, Command: "python3", PID: 4242, Constraint: ConstraintCpuset, Cgroup: "/"}},
	{"kubelet eviction manager, structured (knowledge)", `I1127 18:48:46.123456    2231 eviction_manager.go:395] "Eviction manager: must evict pod(s) to reclaim" resourceName="memory"`,
		KillReport{Kind: Eviction, Constraint: ConstraintGlobal, Reason: "kubelet eviction manager"}},
	{"kubelet eviction manager, before structured logging (knowledge)", "I1127 18:48:46.123456    2231 eviction_manager.go:357] eviction manager: must evict pod(s) to reclaim memory",
		KillReport{Kind: Eviction, Constraint: ConstraintGlobal, Reason: "kubelet eviction manager"}},
	{"kubelet eviction v1.14-v1.18", "The node was low on resource: memory. Container trainer was using 31457280Ki, which exceeds its request of 0. ",
		KillReport{Kind: Eviction, Constraint: ConstraintGlobal, Container: "trainer", RSS: 31457280 << 10}},
	// Slurm: the format strings of slurmstepd's task/cgroup plugin
	// (task_cgroup_memory.c; cgroup/v1, v2 from 21.08) and srun (launch
	// plugin, src/srun/launch.c from 23.02), filled in; tags as Slurm's.
	{"slurmstepd 23.02-26.05 (task_cgroup_memory.c, slurm-23-02-0-1..slurm-26-05-3-1)", "slurmstepd: error: Detected 1 oom_kill event in StepId=8841.0. Some of the step tasks have been OOM Killed.",
		KillReport{Kind: SlurmOOM, Count: 1, Job: "8841", Step: "0", Constraint: ConstraintCgroup}},
	{"slurmstepd 23.02-26.05 plural, batch step (task_cgroup_memory.c)", "slurmstepd: error: Detected 2 oom_kill events in StepId=8841.batch. Some of the step tasks have been OOM Killed.",
		KillReport{Kind: SlurmOOM, Count: 2, Job: "8841", Step: "batch", Constraint: ConstraintCgroup}},
	{"slurmstepd 23.02-26.05 het component (task_cgroup_memory.c, log.c log_build_step_id_str)", "slurmstepd: error: Detected 1 oom_kill event in StepId=8841.0+1. Some of the step tasks have been OOM Killed.",
		KillReport{Kind: SlurmOOM, Count: 1, Job: "8841", Step: "0", Constraint: ConstraintCgroup}},
	{"slurmd log 23.02-26.05, extern step (task_cgroup_memory.c)", "[2026-11-27T18:48:46.123] [8841.extern] error: Detected 1 oom_kill event in StepId=8841.extern. Some of the step tasks have been OOM Killed.",
		KillReport{Kind: SlurmOOM, Count: 1, Job: "8841", Step: "extern", Constraint: ConstraintCgroup}},
	{"slurmstepd 21.08-22.05 (task_cgroup_memory.c, slurm-21-08-0-0rc1..slurm-22-05)", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=14976297.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.",
		KillReport{Kind: SlurmOOM, Count: 1, Job: "14976297", Step: "batch", Constraint: ConstraintCgroup}},
	{"slurmstepd 20.11 (task_cgroup_memory.c, slurm-20-11-0-0rc1..slurm-20-11)", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=14976297.batch cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.",
		KillReport{Kind: SlurmOOM, Count: 1, Job: "14976297", Step: "batch", Constraint: ConstraintCgroup}},
	{"slurmstepd 17.11.10-20.02 (task_cgroup_memory.c, slurm-17-11-10-1..slurm-20-02)", "slurmstepd: error: Detected 1 oom-kill event(s) in step 1234.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.",
		KillReport{Kind: SlurmOOM, Count: 1, Job: "1234", Step: "0", Constraint: ConstraintCgroup}},
	{"slurmstepd 17.11.3-17.11.9 (task_cgroup_memory.c, slurm-17-11-3-1..slurm-17-11-9)", "slurmstepd: error: Detected 3 oom-kill event(s) in step 1234.batch cgroup.",
		KillReport{Kind: SlurmOOM, Count: 3, Job: "1234", Step: "batch", Constraint: ConstraintCgroup}},
	{"srun task 17.02-26.05 (launch_slurm.c 17.02-22.05, srun/launch.c 23.02+)", "srun: error: gpu-node-17: task 3: Out Of Memory",
		KillReport{Kind: SrunOOM, Node: "gpu-node-17", Reason: "task 3", Constraint: ConstraintCgroup}},
	{"srun tasks 17.02-26.05 (launch_slurm.c, srun/launch.c)", "srun: error: gpu-node-17: tasks 0-3: Out Of Memory",
		KillReport{Kind: SrunOOM, Node: "gpu-node-17", Reason: "task 0-3", Constraint: ConstraintCgroup}},
	{"ray task 2.x", "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\nMemory on the node (IP: 10.0.3.7, ID: 4f2b9c) where the task (task ID: 16310a0f0a45af5cffffffffffffffffffffffff01000000, name=load_shard, pid=53120, memory used=28.41GB) was running was 30.12GB / 31.35GB (0.960778), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 2c8a) because it was the most recently scheduled task.",
		KillReport{Kind: RayOOM, Node: "10.0.3.7", Command: "load_shard", PID: 53120, RSS: 28410000000, Usage: 30120000000, Limit: 31350000000, Constraint: ConstraintGlobal, Key: "16310a0f0a45af5cffffffffffffffffffffffff01000000"}},
	{"ray actor 2.x", "Memory on the node (IP: 10.0.3.7, ID: 4f2b9c) where the actor (actor ID: 9a1c, name=Trainer.__init__, pid=700, memory used=1.50GB) was running was 30.12GB / 31.35GB (0.960778), which exceeds the memory usage threshold of 0.95.",
		KillReport{Kind: RayOOM, Node: "10.0.3.7", Command: "Trainer.__init__", PID: 700, RSS: 1500000000, Usage: 30120000000, Limit: 31350000000, Constraint: ConstraintGlobal, Key: "9a1c"}},
	{"ray lease 2026", "Memory on the node (IP: 10.0.3.7, ID: 4f2b9c) where the lease (lease ID: 77aa, name=f, pid=701, memory used=2.00GB) was running was 30.12GB / 31.35GB (0.96), which exceeds the memory usage threshold of 0.95.",
		KillReport{Kind: RayOOM, Node: "10.0.3.7", Command: "f", PID: 701, RSS: 2000000000, Usage: 30120000000, Limit: 31350000000, Constraint: ConstraintGlobal, Key: "77aa"}},
	{"raylet summary", "(raylet) [2026-11-27 18:48:46,000 E 120 120] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 4f2b9c, IP: 10.0.3.7) over the last time period.",
		KillReport{Kind: RayOOM, Count: 1, Node: "10.0.3.7", Constraint: ConstraintGlobal, Reason: "raylet summary"}},
}

func TestSourceLines(t *testing.T) {
	for _, c := range sourceCases {
		got, ok := Parse(c.line)
		if !ok {
			t.Errorf("%s: not recognised: %q", c.name, c.line)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
		if got.Kind.Kernel() || got.Kind.Source() == "" {
			t.Errorf("%s: kind %v has source %q", c.name, got.Kind, got.Kind.Source())
		}
	}
}

// lookalikes are lines that speak of killing or memory and are no host
// kill: they stay untagged.
var lookalikes = []string{
	"Killed", // an application's own word
	"/bin/sh: line 1: 4242 Killed                  python train.py", // the shell reporting a SIGKILL of any cause
	"worker 3 Killed by user request",
	"Set oom_score_adj to -999 for pid 4242", // oom_score_adj tuning
	"echo 1000 > /proc/self/oom_score_adj",
	"oom_score_adj=-998 applied to kubelet",
	"Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space",                    // the JVM's heap
	"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 41246000000 bytes.", // XLA:CPU
	"RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4831838208 bytes. [tf-allocator-allocation-error='']",
	"E external/xla/xla/stream_executor/integrations/tf_allocator_adapter.cc:58] Out of memory: failed to allocate pinned host memory",
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
	"Memory cgroup out of memory: the job will be restarted", // prose about it
	"INFO: memory: usage is fine",
	"The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 2Gi.",
	"sending SIGTERM to workers",
	"Detected 3 GPUs in StepId=8841.0.",
	`I1127 18:48:46.123456    2231 eviction_manager.go:395] "Eviction manager: must evict pod(s) to reclaim" resourceName="ephemeral-storage"`,
	`I1127 18:48:46.123456    2231 eviction_manager.go:368] "Eviction manager: attempting to reclaim" resourceName="memory"`, // not yet a decision to evict
	// a victim in a container's cgroup: kubelet logs no SystemOOM for it
	`I1127 18:48:46.123456    2231 oom_watcher_linux.go:80] "Got sys oom event" event="&{Pid:4242 ProcessName:python3 TimeOfDeath:2026-11-27 18:48:46.118 +0000 UTC ContainerName:/kubepods/pod1 VictimContainerName:/kubepods/pod1/abc Constraint:CONSTRAINT_MEMCG}"`,
	"srun: error: gpu-node-17: task 3: Exited with exit code 1",
}

func TestLookalikes(t *testing.T) {
	for _, l := range lookalikes {
		if s, ok := Parse(l); ok && !s.Kind.Lends() { // a SIGKILL's report lends, it is no kill
			t.Errorf("tagged a look-alike as %v: %q", s.Kind, l)
		}
	}
}

func TestQuantity(t *testing.T) {
	for q, want := range map[string]int64{"1234Ki": 1234 << 10, "100Mi": 100 << 20, "16Gi": 16 << 30, "2G": 2e9, "512": 512, "": 0, "x": 0, "-1Mi": 0} {
		if got := Quantity(q); got != want {
			t.Errorf("Quantity(%q) = %d, want %d", q, got, want)
		}
	}
}
