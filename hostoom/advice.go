// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"fmt"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// RetryRule is one row of the kills' verdicts: one only where the kill's own statements show what decided it.
type RetryRule struct {
	Name, Verdict, Condition, Evidence string
	Hint                               string // the advice in a few words (xlaoom run)
	when                               func(k *Kill) bool
}

// RetryRules are tried in order: the first whose condition holds decides; with none, unknown.
var RetryRules = []RetryRule{
	{
		Name: "own cgroup limit", Verdict: oom.RetryFutile,
		Condition: "the kernel's own lines say the kill's cgroup reached its limit: CONSTRAINT_MEMCG, " +
			"\"Memory cgroup out of memory\", \"Task in … killed as a result of limit of …\"",
		Evidence: "The limit is configuration (a container's resources.limits.memory, Slurm's --mem, a unit's MemoryMax=): " +
			"the same job with the same limit fills it again, whatever else runs on the node (the real kill of " +
			"hostoom/testdata: a 64 MiB memory cgroup, the process killed at 64 MiB). A container's OOMKilled, " +
			"Slurm's oom_kill events and systemd's unit message read the cgroup's oom_kill counter, which a " +
			"global OOM raises too: alone they give no verdict (unknown); the kernel's line of the same kill does.",
		Hint: "raise the memory request/limit, or lower host memory: stream the checkpoint restore, " +
			"fewer or lighter data-loader workers, a lower pinned-host limit",
		when: func(k *Kill) bool { return k.Kind.Kernel() && k.Constraint == ConstraintCgroup },
	},
	{
		Name: "node out of memory", Verdict: oom.RetryMayHelp,
		Condition: "the node's memory ran out: the kernel's CONSTRAINT_NONE (\"Out of memory\", global_oom), " +
			"CONSTRAINT_CPUSET or CONSTRAINT_MEMORY_POLICY, kubelet's SystemOOM or memory eviction, earlyoom, " +
			"systemd-oomd, Ray's memory monitor",
		Evidence: "A global OOM picks its victim among every process of the node by oom_score: the memory another job, " +
			"a daemon or the page cache held decided it, so the same job alone, or on another node, may fit.",
		Hint: "a neighbour may have held the memory; reserve the job's memory (a request equal to its limit)",
		when: func(k *Kill) bool {
			switch k.Kind {
			case OomdKill, Eviction, RayOOM, EarlyoomKill, NodeSystemOOM:
				return true
			}
			return k.Constraint == ConstraintGlobal || k.Constraint == ConstraintCpuset || k.Constraint == ConstraintMemoryPolicy
		},
	},
}

// Retry is the kill's verdict and the rule that gave it.
func (k *Kill) Retry() (verdict, rule string) {
	if r := k.rule(); r != nil {
		return r.Verdict, r.Name
	}
	return oom.RetryUnknown, ""
}

// Hint is the deciding rule's Hint; "" when no rule decides.
func (k *Kill) Hint() string {
	if r := k.rule(); r != nil {
		return r.Hint
	}
	return ""
}

// rule is the first of RetryRules whose condition holds, nil for none.
func (k *Kill) rule() *RetryRule {
	for i := range RetryRules {
		if RetryRules[i].when(k) {
			return &RetryRules[i]
		}
	}
	return nil
}

// Cause says in one sentence what killed the process.
func (k *Kill) Cause() string {
	who := "a process"
	if k.Command != "" {
		who = fmt.Sprintf("%s (pid %d)", k.Command, k.PID)
	}
	switch verdict, _ := k.Retry(); {
	case verdict == oom.RetryFutile && k.Limit > 0:
		return fmt.Sprintf("%s was killed when its cgroup reached its memory limit of %s", who, oom.HumanBytes(k.Limit))
	case verdict == oom.RetryFutile:
		return who + " was killed when its cgroup reached its memory limit"
	case verdict == oom.RetryMayHelp:
		return fmt.Sprintf("%s was killed because the node ran low on memory (%s)", who, k.Kind.Source())
	}
	return who + " was killed by the kernel's OOM killer"
}

// Advice is what the killed job can change, in order.
func (k *Kill) Advice() []string {
	var first string
	if verdict, _ := k.Retry(); verdict == oom.RetryMayHelp {
		first = "Give the job memory of its own: a memory request equal to its limit (Kubernetes Guaranteed QoS), " +
			"a node of its own, or fewer jobs per node; another process held the node's memory."
	} else {
		first = "Raise the job's memory request and limit (Kubernetes resources.limits.memory, Slurm --mem, systemd MemoryMax=) " +
			"to what it peaks at"
		if k.RSS > 0 && k.Limit > 0 {
			first += fmt.Sprintf(": it held %s of a %s limit when killed", oom.HumanBytes(k.RSS), oom.HumanBytes(k.Limit))
		}
		first += ", or lower its host memory with the steps below."
	}
	return []string{
		first,
		"Restore checkpoints streaming to the devices (Orbax restore with shardings, torch.load(..., mmap=True)) instead of materialising them in host memory first.",
		"Use fewer or lighter data-loader workers (num_workers, tf.data parallelism and prefetch buffers): each worker holds its own copy of the pipeline's state.",
		"Bound XLA's pinned host memory (XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB) so that it leaves room for the rest of the process.",
	}
}
