// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	// slurmstepd's task/cgroup plugin, checked against Slurm's source
	// (src/plugins/task/cgroup/task_cgroup_memory.c; the cgroup/v1 plugin
	// counts the events from 21.08, cgroup/v2 from 22.05), error() at the
	// step's end:
	//   17.11.3-17.11.9: "Detected %PRIu64 oom-kill event(s) in step %s
	//     cgroup." (%s: "J.S", "J.batch", "J.extern");
	//   17.11.10-20.02: the same + " Some of your processes may have been
	//     killed by the cgroup out-of-memory handler.";
	//   20.11: "… in %ps cgroup. Some of your processes …" (%ps:
	//     "StepId=J.S", "+H" after a het step's component);
	//   21.08-22.05: "… in %ps. Some of your processes …";
	//   23.02+: "Detected %PRIu64 oom_kill event%s in %ps. Some of the step
	//     tasks have been OOM Killed."
	slurmRe = regexp.MustCompile(`Detected (\d+) oom[-_]kill events?(?:\(s\))? in (?:StepId=|JobId=|step )(\d+)(?:\.(\w+)(?:\+\d+)?)?(?: cgroup)?\.`)
	// srun, "%s: %s %s: Out Of Memory" (hosts, "task"/"tasks", the task
	// list) for a task exit whose status is SIG_OOM, once per srun:
	// src/plugins/launch/slurm/launch_slurm.c 17.02-22.05, src/srun/launch.c
	// 23.02+. slurmstepd sets SIG_OOM when its task plugin counted oom_kill
	// events, so from 17.11.3 the line follows the "Detected" line of the
	// same step (Kind.Echo).
	srunRe = regexp.MustCompile(`srun: error: (\S+): tasks? (\S+): Out Of Memory`)
	// Ray's memory monitor (python/ray/_private/..., raylet
	// node_manager.cc; Ray 2.2+): "Task was killed due to the node running
	// low on memory." then "Memory on the node (IP: %s, ID: %s) where the
	// task (task ID: %s, name=%s, pid=%d, memory used=%.2fGB) was running
	// was %.2fGB / %.2fGB (%f), which exceeds the memory usage threshold of
	// %f." ("actor (actor ID: …" for actors; Ray of 2026: "lease (lease ID: …").
	rayRe = regexp.MustCompile(`Memory on the node \(IP: (\S+), ID: (\w+)\) where the (?:task|actor|lease|worker) \((?:task|actor|lease|worker) ID: (\w+), name=(.*?), pid=(\d+), memory used=([\d.]+)GB\) was running was ([\d.]+)GB / ([\d.]+)GB`)
	// raylet's periodic summary: "%d Workers (tasks / actors) killed due to
	// memory pressure (OOM), %d Workers crashed due to other reasons at node
	// (ID: %s, IP: %s) over the last time period."
	raySummaryRe = regexp.MustCompile(`(\d+) Workers \(tasks / actors\) killed due to memory pressure \(OOM\)(?:, \d+ Workers crashed due to other reasons at node \(ID: (\w+), IP: (\S+)\))?`)
)

// parseSlurmRay reads Slurm's and Ray's statements.
func parseSlurmRay(msg string) (Statement, bool) {
	if strings.Contains(msg, " event") && strings.Contains(msg, "Detected ") {
		if m := slurmRe.FindStringSubmatch(msg); m != nil {
			return Statement{Kind: SlurmOOM, Count: num(m[1]), Job: m[2], Step: m[3], Constraint: ConstraintCgroup}, true
		}
	}
	if strings.Contains(msg, "Out Of Memory") {
		if m := srunRe.FindStringSubmatch(msg); m != nil {
			return Statement{Kind: SrunOOM, Node: m[1], Reason: "task " + m[2], Constraint: ConstraintCgroup}, true
		}
	}
	if strings.Contains(msg, "Memory on the node") {
		if m := rayRe.FindStringSubmatch(msg); m != nil {
			return Statement{Kind: RayOOM, Node: m[1], Command: m[4], PID: num(m[5]), RSS: gb(m[6]),
				Usage: gb(m[7]), Limit: gb(m[8]), Constraint: ConstraintGlobal, Key: m[3]}, true
		}
	}
	if strings.Contains(msg, "killed due to memory pressure (OOM)") {
		if m := raySummaryRe.FindStringSubmatch(msg); m != nil && num(m[1]) > 0 {
			return Statement{Kind: RayOOM, Count: num(m[1]), Node: m[3], Constraint: ConstraintGlobal, Reason: "raylet summary"}, true
		}
	}
	return Statement{}, false
}

// gb reads Ray's "%.2fGB" (10^9 bytes, as Ray's memory monitor divides).
func gb(s string) int64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0
	}
	return int64(f * 1e9)
}
