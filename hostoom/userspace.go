// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"regexp"
	"strconv"
	"strings"
)

// User-space killers that act for memory, Slurm's and Ray's (versions: docs/incidents.md).
var (
	// systemd-oomd (oomd-manager.c) v247+; "Marked … for killing" v253+
	oomdRe = regexp.MustCompile(`(?:Killed|Marked) (/\S*) (?:for killing )?due to (memory pressure|memory used|swap used)(?: for (\S+) being ([\d.]+%) > ([\d.]+%))?(?: \((\d+)\) / total \((\d+)\))?`)
	// systemd (unit.c) v243+; the "Failed with result 'oom-kill'." after it is the same kill
	unitRe = regexp.MustCompile(`(\S+\.(?:service|scope|slice|socket|mount|swap)): (?:(A process of this unit has been killed by the OOM killer)|systemd-oomd killed (\d+) process\(es\) in this unit)\.`)
	// earlyoom (kill.c) 1.3+: uid 1.4+, oom_score 1.8+, oom_score_adj 1.9
	earlyoomRe = regexp.MustCompile(`sending (SIG[A-Z]+) to process (\d+)(?: uid (\d+))? "(.*?)": (?:badness|oom_score) (-?\d+),(?: oom_score_adj -?\d+,)? VmRSS (\d+) MiB`)
	// slurmstepd's task/cgroup plugin (task_cgroup_memory.c), 17.11.3-23.02+
	slurmRe = regexp.MustCompile(`Detected (\d+) oom[-_]kill events?(?:\(s\))? in (?:StepId=|JobId=|step )(\d+)(?:\.(\w+)(?:\+\d+)?)?(?: cgroup)?\.`)
	// srun 17.02+: follows slurmstepd's line of the same step (Kind.Echo)
	srunRe = regexp.MustCompile(`srun: error: (\S+): tasks? (\S+): Out Of Memory`)
	// Ray 2.2+'s memory monitor (a task, an actor, a lease, a worker)
	rayRe = regexp.MustCompile(`Memory on the node \(IP: (\S+), ID: (\w+)\) where the (?:task|actor|lease|worker) \((?:task|actor|lease|worker) ID: (\w+), name=(.*?), pid=(\d+), memory used=([\d.]+)GB\) was running was ([\d.]+)GB / ([\d.]+)GB`)
	// raylet's periodic summary
	// bash 4.2-5.3, a non-interactive shell's foreground job (jobs.c print_pipeline): "<script>: line N: " + "%5ld"
	// pid + " " + "Killed" padded to 27 + the command
	bashKilledRe = regexp.MustCompile(`line \d+: +(\d+) Killed {2,}(\S.*?)\s*$`)
	// PyTorch's DataLoader: "DataLoader worker (pid N) is killed by signal: Killed." (torch/csrc/DataLoader.cpp)
	// and "DataLoader worker (pid(s) N, M) exited unexpectedly" (torch/utils/data/dataloader.py)
	dataLoaderRe = regexp.MustCompile(`DataLoader worker \(pid(?:\(s\))? (\d+)[^)]*\) (?:is killed by signal: Killed|exited unexpectedly)`)
	// torchrun (torch.distributed.elastic): "failed (exitcode: -9) local_rank: 0 (pid: N) of binary: B" and the
	// error summary's "traceback : Signal 9 (SIGKILL) received by PID N"
	torchrunRe   = regexp.MustCompile(`(?:failed \(exitcode: -9\) local_rank: \d+ \(pid: (\d+)\) of binary: (\S+)|Signal 9 \(SIGKILL\) received by PID (\d+))`)
	raySummaryRe = regexp.MustCompile(`(\d+) Workers \(tasks / actors\) killed due to memory pressure \(OOM\)(?:, \d+ Workers crashed due to other reasons at node \(ID: (\w+), IP: (\S+)\))?`)
)

// parseUserspace reads systemd-oomd's, systemd's and earlyoom's lines.
func parseUserspace(msg string) (KillReport, bool) {
	if strings.Contains(msg, " due to ") {
		if m := oomdRe.FindStringSubmatch(msg); m != nil {
			s := KillReport{Kind: OomdKill, Cgroup: m[1], LimitCgroup: m[3], Constraint: ConstraintCgroup}
			if m[2] == "memory pressure" {
				s.Reason = "memory pressure " + m[4] + " > " + m[5]
			} else {
				s.Reason, s.Usage, s.Limit = m[2], num(m[6]), num(m[7])
				if m[3] == "" {
					s.Constraint = ConstraintGlobal // the swap/memory rule watches the whole node
				}
			}
			return s, true
		}
	}
	if strings.Contains(msg, "OOM killer") || strings.Contains(msg, "systemd-oomd killed") {
		if m := unitRe.FindStringSubmatch(msg); m != nil {
			s := KillReport{Kind: UnitOOM, Cgroup: m[1], Reason: SourceKernel}
			if m[2] == "" {
				s.Reason, s.Count = SourceOomd, num(m[3])
			}
			return s, true
		}
	}
	if strings.Contains(msg, "sending SIG") {
		if m := earlyoomRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: EarlyoomKill, PID: num(m[2]), Command: m[4], RSS: num(m[6]) << 20,
				Constraint: ConstraintGlobal, Reason: m[1]}, true
		}
	}
	return KillReport{}, false
}

// parseSlurmRay reads Slurm's and Ray's statements.
func parseSlurmRay(msg string) (KillReport, bool) {
	if strings.Contains(msg, " event") && strings.Contains(msg, "Detected ") {
		if m := slurmRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: SlurmOOM, Count: num(m[1]), Job: m[2], Step: m[3], Constraint: ConstraintCgroup}, true
		}
	}
	if strings.Contains(msg, "Out Of Memory") {
		if m := srunRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: SrunOOM, Node: m[1], Reason: "task " + m[2], Constraint: ConstraintCgroup}, true
		}
	}
	if strings.Contains(msg, "Memory on the node") {
		if m := rayRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: RayOOM, Node: m[1], Command: m[4], PID: num(m[5]), RSS: gb(m[6]),
				Usage: gb(m[7]), Limit: gb(m[8]), Constraint: ConstraintGlobal, Key: m[3]}, true
		}
	}
	if strings.Contains(msg, "killed due to memory pressure (OOM)") {
		if m := raySummaryRe.FindStringSubmatch(msg); m != nil && num(m[1]) > 0 {
			return KillReport{Kind: RayOOM, Count: num(m[1]), Node: m[3], Constraint: ConstraintGlobal, Reason: "raylet summary"}, true
		}
	}
	return KillReport{}, false
}

// oomdKey joins one systemd-oomd kill's two reports, systemd-oomd's (which names the unit's cgroup) and
// systemd's (PID 1, which names the unit): "" for any other statement.
func oomdKey(s *KillReport) string {
	if s.Kind == OomdKill || s.Kind == UnitOOM && s.Reason == SourceOomd {
		return "systemd-oomd " + s.Cgroup[strings.LastIndexByte(s.Cgroup, '/')+1:]
	}
	return ""
}

// parseLender reads a report that a process died of SIGKILL (Kind.Lends): bash's, PyTorch's DataLoader's,
// torchrun's.
func parseLender(msg string) (KillReport, bool) {
	if strings.Contains(msg, " Killed  ") {
		if m := bashKilledRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: SignalKilled, PID: num(m[1]), Command: m[2], Reason: "bash"}, true
		}
	}
	if strings.Contains(msg, "DataLoader worker (pid") {
		if m := dataLoaderRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: SignalKilled, PID: num(m[1]), Command: "DataLoader worker", Reason: "pytorch"}, true
		}
	}
	if strings.Contains(msg, "(exitcode: -9)") || strings.Contains(msg, "(SIGKILL) received by PID") {
		if m := torchrunRe.FindStringSubmatch(msg); m != nil {
			s := KillReport{Kind: SignalKilled, PID: num(m[1]), Command: m[2], Reason: "torchrun"}
			if m[3] != "" {
				s.PID = num(m[3])
			}
			return s, true
		}
	}
	return KillReport{}, false
}

// gb reads Ray's "%.2fGB" (10^9 bytes, as Ray's memory monitor divides).
func gb(s string) int64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0
	}
	return int64(f * 1e9)
}
