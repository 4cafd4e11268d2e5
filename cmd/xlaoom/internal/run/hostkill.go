// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"fmt"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// hostKill is what the memory cgroup's counters say about one run: the
// kernel's OOM killer killed kills of the job's processes.
type hostKill struct {
	kills int64
	after memcgCounts
	// ownLimit: the cgroup reached its own limit (v2: its "oom" counter
	// rose; v1: its peak usage reached its limit). Else the kill was the
	// node's (a global OOM) or an ancestor's limit.
	ownLimit bool
}

// hostKillBetween compares the counters read before and after a run; nil
// when the OOM killer killed nothing of the job's, or the counters could
// not be read (a plain SIGKILL, or any other death, is never a host kill).
func hostKillBetween(before memcgCounts, beforeErr error) *hostKill {
	if beforeErr != nil {
		return nil
	}
	after, err := readMemcg()
	if err != nil || after.path != before.path || after.oomKill <= before.oomKill {
		return nil
	}
	k := &hostKill{kills: after.oomKill - before.oomKill, after: after}
	if after.v2 {
		k.ownLimit = after.oomAtLimit > before.oomAtLimit
	} else {
		// A v1 memcg has no "oom" counter; its peak at the limit (to one
		// page per CPU's charge batch, 2 MiB) shows that the limit was hit.
		k.ownLimit = after.limit > 0 && after.peak >= after.limit-2<<20
	}
	return k
}

// kill is the counters' kill as hostoom reads the kernel's: its cgroup's
// own limit, else the node's memory.
func (k *hostKill) kill() *hostoom.Kill {
	s := hostoom.Statement{Kind: hostoom.KernelKilled, Constraint: hostoom.ConstraintGlobal, Count: k.kills}
	if k.ownLimit {
		s.Constraint, s.Limit = hostoom.ConstraintCgroup, k.after.limit
	}
	return &hostoom.Kill{Statement: s, Complete: true}
}

// String names the kill in the wrapper's line.
func (k *hostKill) String() string {
	where := "the node ran out of memory (not the cgroup's own limit)"
	if k.ownLimit {
		where = "it reached its cgroup's memory limit"
		if k.after.limit > 0 {
			where += " of " + oom.HumanBytes(k.after.limit)
		}
	}
	return fmt.Sprintf("the kernel's OOM killer killed %d process(es) of the job in %s: %s", k.kills, k.after.path, where)
}

// decideHostKill exits with hostoom's verdict on the kill, as for an XLA
// failure of the same verdict: futile (a restart fails the same way), else
// may_help (rerun up to --retries, then --may-help-exit). rerun is true
// when the wrapper should run the job again.
func (w *wrapper) decideHostKill(k *hostKill, status int, retries *int, sigs *signals) (exit int, rerun bool) {
	kill := k.kill()
	if verdict, _ := kill.Retry(); verdict == oom.RetryFutile {
		w.decided("the job exited %d: %s; futile, a restart fails the same way with the same limit (%s): exit %d",
			status, k, kill.Hint(), w.o.futileExit)
		return w.o.futileExit, false
	}
	what := fmt.Sprintf("the job exited %d: %s; may pass on a rerun", status, k)
	return w.mayHelp(what, "", " ("+kill.Hint()+")", status, retries, sigs)
}
