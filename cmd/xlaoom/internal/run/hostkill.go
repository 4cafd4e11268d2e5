// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import "fmt"

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

// String names the kill in the wrapper's line.
func (k *hostKill) String() string {
	where := "the node ran out of memory (not the cgroup's own limit)"
	if k.ownLimit {
		where = "it reached its cgroup's memory limit"
		if k.after.limit > 0 {
			where += fmt.Sprintf(" of %s", bytesText(k.after.limit))
		}
	}
	return fmt.Sprintf("the kernel's OOM killer killed %d process(es) of the job in %s: %s", k.kills, k.after.path, where)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// decideHostKill exits as for an XLA failure of the same verdict (the retry
// table's evidence rule): futile when the job filled its own cgroup, as it
// will again with the same limit; else may_help, as a kill of the node's
// memory depended on what else ran there (rerun up to --retries, then
// --may-help-exit). rerun is true when the wrapper should run the job again.
func (w *wrapper) decideHostKill(k *hostKill, status int, retries *int, sigs *signals) (exit int, rerun bool) {
	if k.ownLimit {
		w.decided("the job exited %d: %s; futile, a restart fails the same way with the same limit (raise the memory request/limit, "+
			"or lower host memory: stream the checkpoint restore, fewer or lighter data-loader workers, a lower pinned-host limit): exit %d",
			status, k, w.o.futileExit)
		return w.o.futileExit, false
	}
	what := fmt.Sprintf("the job exited %d: %s; may pass on a rerun", status, k)
	return w.mayHelp(what, "", " (a neighbour may have held the memory; reserve the job's memory (a request equal to its limit))",
		status, retries, sigs)
}
