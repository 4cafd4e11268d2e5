// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"regexp"
	"strconv"
	"strings"
)

// The kernel's OOM-killer lines (mm/oom_kill.c, mm/memcontrol.c); optional groups: fields versions add or drop.
var (
	// dump_header: what follows gfp_mask differs in nearly every version (oom_adj 2.6, gfp names 4.6+, a nodemask
	// 4.9-4.19 that 4.14 prints in pr_cont pieces), so the line is read up to the mask.
	invokedRe = regexp.MustCompile(`^(.+?) invoked oom-killer: gfp_mask=0x[0-9a-fA-F]+(?:[(,]|$)`)
	// mem_cgroup_print_oom_info before 4.19
	taskInRe = regexp.MustCompile(`^Task in (\S+) killed as a result of limit of (\S+)`)
	// mem_cgroup_print_oom_meminfo (failcnt: v1 only)
	usageRe = regexp.MustCompile(`^memory: usage (\d+)kB, limit (\d+)kB(?:, failcnt (\d+))?`)
	statsRe = regexp.MustCompile(`^Memory cgroup stats for (\S+?):`)
	// oom_kill_memcg_member's caller, 4.19+
	groupRe = regexp.MustCompile(`^Tasks in (\S+) are going to be killed due to memory\.oom\.group set`)
	// oom_kill_process before 5.1: "Kill … score N or sacrifice child" 2.6.39-5.0, "kill … or a child" 2.6.32
	selectRe = regexp.MustCompile(`^(` + oomMessage + `): [Kk]ill process (\d+) \((.*)\) score (-?\d+) or (?:sacrifice|a) child`)
	// __oom_kill_process: ", UID N," before the sizes in RHEL 6.8 (after the pid) and RHEL 7.7+ (after the comm);
	// shmem-rss 4.6+; the prefix 5.1+; UID… 5.4+
	killedRe = regexp.MustCompile(`^(?:(` + oomMessage + `): )?Killed process (\d+)(?:, UID (\d+),)? \((.*)\)(?:, UID (\d+),)? total-vm:(\d+)kB, anon-rss:(\d+)kB, file-rss:(\d+)kB(?:, shmem-rss:(\d+)kB)?(?:,? UID:(\d+))?(?: pgtables:(\d+)kB)?(?: oom_score_adj:(-?\d+))?`)
	// oom_reap_task_mm, 4.6+
	reapedRe = regexp.MustCompile(`^oom_reaper: reaped process (\d+) \((.*)\),? now anon-rss:(\d+)kB, file-rss:(\d+)kB(?:, shmem-rss:(\d+)kB)?`)
)

// oomMessage is out_of_memory's and mem_cgroup_out_of_memory's message: it names the constraint.
const oomMessage = `Out of memory(?: \(oom_kill_allocating_task\))?|Memory cgroup out of memory|No available memory \(MPOL_BIND\)`

// parseKernel reads one kernel message (header already taken off).
func parseKernel(msg string) (KillReport, bool) {
	switch {
	case strings.Contains(msg, " invoked oom-killer: "):
		if m := invokedRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: KernelInvoked, Command: m[1]}, true
		}
	case strings.HasPrefix(msg, "oom-kill:") || strings.HasPrefix(msg, ",cpuset=") ||
		strings.HasPrefix(msg, ",oom_memcg=") || strings.HasPrefix(msg, ",global_oom") ||
		strings.HasPrefix(msg, ",task_memcg=") || strings.HasPrefix(msg, ",task="):
		return parseSummary(msg)
	case strings.HasPrefix(msg, "memory: usage "):
		if m := usageRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: KernelUsage, Usage: kB(m[1]), Limit: kB(m[2])}, true
		}
	case strings.HasPrefix(msg, "Task in "):
		if m := taskInRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: KernelTaskIn, Cgroup: m[1], LimitCgroup: m[2], Constraint: ConstraintCgroup}, true
		}
	case strings.HasPrefix(msg, "Memory cgroup stats for "):
		if m := statsRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: KernelStats, LimitCgroup: m[1]}, true
		}
	case strings.HasPrefix(msg, "Tasks in "):
		if m := groupRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: KernelGroup, LimitCgroup: m[1], Constraint: ConstraintCgroup}, true
		}
	case strings.HasPrefix(msg, "oom_reaper: "):
		if m := reapedRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: KernelReaped, PID: num(m[1]), Command: m[2]}, true
		}
	case strings.Contains(msg, "Killed process "):
		if m := killedRe.FindStringSubmatch(msg); m != nil {
			s := KillReport{Kind: KernelKilled, Constraint: prefixConstraint(m[1]), PID: num(m[2]), Command: m[4],
				AnonRSS: kB(m[7]), FileRSS: kB(m[8]), Shmem: kB(m[9])}
			s.RSS = s.AnonRSS + s.FileRSS + s.Shmem
			return s, true
		}
	case strings.Contains(msg, "ill process ") && strings.Contains(msg, " score "):
		if m := selectRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: KernelSelect, Constraint: prefixConstraint(m[1]), PID: num(m[2]), Command: m[3]}, true
		}
	}
	return KillReport{}, false
}

// prefixConstraint reads the kill line's prefix (none before 5.1).
func prefixConstraint(prefix string) Constraint {
	switch {
	case prefix == "":
		return ConstraintUnknown
	case strings.HasPrefix(prefix, "Memory cgroup"):
		return ConstraintCgroup
	case strings.HasPrefix(prefix, "No available memory"):
		return ConstraintMemoryPolicy
	}
	return ConstraintGlobal
}

// parseSummary reads dump_oom_summary (4.19+) or a piece of it (pr_cont splits it at a comma), fields by name.
func parseSummary(msg string) (KillReport, bool) {
	s := KillReport{Kind: KernelSummary, Constraint: kernelConstraint(field(msg, "oom-kill:constraint=", ",")),
		LimitCgroup: field(msg, ",oom_memcg=", ",task_memcg="), Cgroup: field(msg, ",task_memcg=", ",task=")}
	if strings.Contains(msg, ",global_oom") && s.Constraint == ConstraintUnknown {
		s.Constraint = ConstraintGlobal
	}
	if i := strings.LastIndex(msg, ",pid="); i >= 0 {
		if t := strings.LastIndex(msg[:i], ",task="); t >= 0 {
			s.Command = msg[t+len(",task=") : i]
		} else if strings.HasPrefix(msg, "task=") {
			s.Command = msg[len("task="):i]
		}
		rest := msg[i+len(",pid="):]
		if j := strings.Index(rest, ",uid="); j > 0 {
			s.PID = num(rest[:j])
		}
	}
	if s.Constraint == ConstraintUnknown && s.Cgroup == "" && s.PID == 0 && s.LimitCgroup == "" {
		return KillReport{}, false
	}
	return s, true
}

// field returns the text after key up to the next end (or the end of msg), "" without key.
func field(msg, key, end string) string {
	i := strings.Index(msg, key)
	if i < 0 {
		return ""
	}
	v := msg[i+len(key):]
	if j := strings.Index(v, end); j >= 0 {
		v = v[:j]
	}
	return v
}

// kernelConstraint maps oom_constraint_text; another value (CPUSET, MEMORY_POLICY) passes through lower-cased.
func kernelConstraint(v string) Constraint {
	switch v {
	case "CONSTRAINT_MEMCG":
		return ConstraintCgroup
	case "CONSTRAINT_NONE":
		return ConstraintGlobal
	}
	return Constraint(strings.ToLower(strings.TrimPrefix(v, "CONSTRAINT_")))
}

// kB is a kernel kB figure in bytes; 0 when absent or out of range.
func kB(s string) int64 {
	n := num(s)
	if n >= 1<<52 {
		return 0 // "limit 9007199254740988kB" is the kernel's "no limit"
	}
	return n * 1024
}

func num(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}
