// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"regexp"
	"strconv"
	"strings"
)

// User-space killers that act for memory (versions: docs/incidents.md).
var (
	// systemd-oomd (oomd-manager.c) v247+; "Marked … for killing" v253+
	oomdRe = regexp.MustCompile(`(?:Killed|Marked) (/\S*) (?:for killing )?due to (memory pressure|memory used|swap used)(?: for (\S+) being ([\d.]+%) > ([\d.]+%))?(?: \((\d+)\) / total \((\d+)\))?`)
	// systemd (unit.c) v243+; the "Failed with result 'oom-kill'." after it is the same kill
	unitRe = regexp.MustCompile(`(\S+\.(?:service|scope|slice|socket|mount|swap)): (?:(A process of this unit has been killed by the OOM killer)|systemd-oomd killed (\d+) process\(es\) in this unit)\.`)
	// earlyoom (kill.c) 1.3+: uid 1.4+, oom_score 1.8+, oom_score_adj 1.9
	earlyoomRe = regexp.MustCompile(`sending (SIG[A-Z]+) to process (\d+)(?: uid (\d+))? "(.*?)": (?:badness|oom_score) (-?\d+),(?: oom_score_adj -?\d+,)? VmRSS (\d+) MiB`)
)

// parseUserspace reads systemd-oomd's, systemd's and earlyoom's lines.
func parseUserspace(msg string) (Statement, bool) {
	if strings.Contains(msg, " due to ") {
		if m := oomdRe.FindStringSubmatch(msg); m != nil {
			s := Statement{Kind: OomdKill, Cgroup: m[1], LimitCgroup: m[3], Constraint: ConstraintCgroup}
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
