// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"regexp"
	"strconv"
	"strings"
)

// User-space killers that act for memory.
var (
	// systemd-oomd, src/oom/oomd-manager.c: "Killed %s due to memory
	// pressure for %s being %lu.%02lu%% > %lu.%02lu%% for > %s with reclaim
	// activity" and "Killed %s due to memory used (%PRIu64) / total
	// (%PRIu64) and swap used (%PRIu64) / total (%PRIu64) being more than
	// %lu.%02lu%%" (v248-v252; v247 printed only "swap used … / total …");
	// v253+ says "Marked %s for killing due to …" as the kill is queued.
	oomdRe = regexp.MustCompile(`(?:Killed|Marked) (/\S*) (?:for killing )?due to (memory pressure|memory used|swap used)(?: for (\S+) being ([\d.]+%) > ([\d.]+%))?(?: \((\d+)\) / total \((\d+)\))?`)
	// systemd (PID 1), src/core/unit.c (v243+ the kernel's kill, v248+
	// systemd-oomd's): "<unit>: A process of this unit has been killed by
	// the OOM killer." and "<unit>: systemd-oomd killed %PRIu64 process(es)
	// in this unit.". The unit's "Failed with result 'oom-kill'." that
	// follows is the same kill, so it is not a statement of its own.
	unitRe = regexp.MustCompile(`(\S+\.(?:service|scope|slice|socket|mount|swap)): (?:(A process of this unit has been killed by the OOM killer)|systemd-oomd killed (\d+) process\(es\) in this unit)\.`)
	// earlyoom, kill.c, checked against its tags: "sending %s to process
	// %d \"%s\": badness %d, VmRSS %lu MiB" (v1.3-v1.3.1), " uid %d" after
	// the pid (v1.4-v1.7), "oom_score %d" for badness and ", cmdline
	// \"%s\"" at the end (v1.8-v1.8.2), ", oom_score_adj %d" after
	// oom_score (v1.9.0). Its earlier "Killing process …" lines (v0.1-v1.2)
	// are not read: v0.x-v1.0's "Killing process %d %s" is any program's
	// words.
	earlyoomRe = regexp.MustCompile(`sending (SIG[A-Z]+) to process (\d+)(?: uid (\d+))? "(.*?)": (?:badness|oom_score) (-?\d+),(?: oom_score_adj -?\d+,)? VmRSS (\d+) MiB`)
)

// parseUserspace reads systemd-oomd's, systemd's and earlyoom's lines.
func parseUserspace(msg string) (Statement, bool) {
	if strings.Contains(msg, " due to ") {
		if m := oomdRe.FindStringSubmatch(msg); m != nil {
			s := Statement{Kind: OomdKill, Cgroup: m[1], LimitCgroup: m[3], Constraint: ConstraintCgroup}
			switch m[2] {
			case "memory pressure":
				s.Reason = "memory pressure " + m[4] + " > " + m[5]
			default:
				s.Reason = m[2]
				s.Usage, s.Limit = num(m[6]), num(m[7])
			}
			if m[2] != "memory pressure" && m[3] == "" {
				s.Constraint = ConstraintGlobal // the swap/memory rule watches the whole node
			}
			return s, true
		}
	}
	if strings.Contains(msg, "OOM killer") || strings.Contains(msg, "systemd-oomd killed") {
		if m := unitRe.FindStringSubmatch(msg); m != nil {
			s := Statement{Kind: UnitOOM, Cgroup: m[1]}
			if m[2] != "" {
				s.Reason = SourceKernel
			} else {
				s.Reason, s.Count = SourceOomd, num(m[3])
			}
			return s, true
		}
	}
	if strings.Contains(msg, "sending SIG") {
		if m := earlyoomRe.FindStringSubmatch(msg); m != nil {
			mib, _ := strconv.ParseInt(m[6], 10, 64)
			return Statement{Kind: EarlyoomKill, PID: num(m[2]), Command: m[4], RSS: mib << 20,
				Constraint: ConstraintGlobal, Reason: m[1]}, true
		}
	}
	return Statement{}, false
}
