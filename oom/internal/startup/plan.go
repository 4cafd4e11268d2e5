// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// readSchedule reads gpu_hlo_schedule.cc's error (2025-03 on): "The byte size of input/output arguments
// (100001000000) exceeds the base limit (63763906560). This indicates an error in the calculation!"
func (p *Process) readSchedule(line string) bool {
	rest, ok := after(line, "input/output arguments (")
	if !ok {
		return false
	}
	io, rest, ok := leadingInt(rest)
	if !ok || !strings.HasPrefix(rest, ") "+phSchedule+" (") {
		return false
	}
	limit, rest, ok := leadingInt(rest[len(") "+phSchedule+" ("):])
	if !ok || !strings.HasPrefix(rest, ")") {
		return false
	}
	p.takePlan(grammar.KnownSize(io), grammar.KnownSize(limit), PlanScheduler)
	return true
}

// readRemat reads hlo_rematerialization.cc's warning:
//
//	Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from ... (2023-07 on)
//	Can't reduce memory use below 1.00GiB (1073741824 bytes) by rematerialization; only reduced to 1.50GiB (1610612736 bytes) (2017-09 on)
//	Can't reduce memory use below 1.00GiB by rematerialization (only reduced to 1.50GiB) (2017-02)
func (p *Process) readRemat(line string) bool {
	rest, ok := after(line, "Can't reduce memory use below ")
	if !ok {
		return false
	}
	limit, rest := planSize(rest)
	rest, ok = after(rest, "only reduced to ")
	if !ok {
		return false
	}
	peak, _ := planSize(rest)
	if !limit.Known || !peak.Known {
		return false
	}
	p.takePlan(peak, limit, PlanRematerialization)
	return true
}

// planSize reads "56.41GiB (60574761232 bytes)" (the exact bytes where printed) or "56.41GiB".
func planSize(s string) (grammar.Size, string) {
	tok, rest, _ := strings.Cut(s, " ")
	tok = strings.TrimRight(tok, "),;")
	size := grammar.ParseSizeToken(tok)
	if exact, ok := strings.CutPrefix(rest, "("); ok {
		if n, r, ok := leadingInt(exact); ok && strings.HasPrefix(r, " bytes)") {
			return grammar.KnownSize(n), r
		}
	}
	return size, rest
}

// takePlan keeps the plan with the largest peak: the warning also prints for the autotuner's candidate
// modules, with tiny limits, and no line names its module.
func (p *Process) takePlan(peak, limit grammar.Size, source string) {
	if p.planStale {
		p.plan, p.planStale = plan{}, false
	}
	if p.plan.source == "" || peak.Bytes > p.plan.peak.Bytes {
		p.plan = plan{peak: peak, limit: limit, source: source}
	}
}
