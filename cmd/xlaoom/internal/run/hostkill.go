// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"fmt"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// hostKill is what the memory cgroup's counters say of one run's kills.
type hostKill struct {
	kills int64
	after memcgCounts
	// ownLimit: the cgroup reached its own limit, not the node or an ancestor.
	ownLimit bool
}

// hostKillBetween compares the counters around a run; nil: no kill, or unread.
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
		// v1 has no "oom" counter: a peak at the limit (to a charge batch) shows it.
		k.ownLimit = after.limit > 0 && after.peak >= after.limit-2<<20
	}
	return k
}

// kill is the counters' kill as hostoom reads the kernel's.
func (k *hostKill) kill() *hostoom.Kill {
	s := hostoom.Statement{Kind: hostoom.KernelKilled, Constraint: hostoom.ConstraintGlobal, Count: k.kills}
	if k.ownLimit {
		s.Constraint, s.Limit = hostoom.ConstraintCgroup, k.after.limit
	}
	return &hostoom.Kill{Statement: s, Complete: true}
}

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

// decideHostKill exits with hostoom's verdict and hint, as for an XLA
// failure of that verdict; rerun: run the job again.
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
