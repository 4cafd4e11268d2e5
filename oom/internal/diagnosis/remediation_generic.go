// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// GenericAdvice is the advice of a last-resort finding.
func GenericAdvice(r *grammar.Report) []string {
	return GenericAdviceTable.Walk("generic", AdviceCase{R: r}, nil)
}

// GenericAdviceTable is the last-resort finding's advice.
var GenericAdviceTable = AdviceTable{
	{Name: "what failed", Action: grammar.ActionInvestigate, When: always, Say: func(c AdviceCase) string {
		r := c.R
		s := "An allocation of " + lastResortMemory(r) + " failed"
		if r.Requested.Known {
			s += " (" + grammar.HumanSize(r.Requested) + " requested"
			if r.Free.Known {
				s += ", " + grammar.HumanSize(r.Free) + " free"
			}
			s += ")"
		}
		return s + ". The message is not one of the formats xla_oom knows (family \"generic\"), so its cause and its fixes are not read from it: check what holds memory on the device when it failed (jax.live_arrays(), the allocator's dump, nvidia-smi or the TPU runtime's memory profile)."
	}},
	{Name: "host memory", Action: grammar.ActionReduceHostMemory, When: isHostSpace,
		Say: sayConst("Host memory backs transfers and host offload: transfer or offload less at once, and check the memory limit of the process (container or cgroup).")},
	{Name: "device memory", Action: grammar.ActionShrinkFootprint, When: func(c AdviceCase) bool { return !isHostSpace(c) },
		Say: sayConst("Reduce the per-device footprint: a smaller batch or sequence length, jax.checkpoint (remat) on large blocks, bfloat16 for large tensors, donate_argnums for inputs not needed after the step, or shard over more devices.")},
	{Name: "report the message", Action: grammar.ActionInvestigate, When: always,
		Say: sayConst("Report the message (with sizes and names scrubbed as you need) to the xla_oom project, so that it becomes a known family with exact fields and advice.")},
}

func lastResortMemory(r *grammar.Report) string {
	switch {
	case r.MemorySpace == "host":
		return "host memory"
	case r.Backend == grammar.BackendGPU:
		return "GPU memory"
	case r.Backend == grammar.BackendTPU:
		return "TPU memory"
	}
	return "memory"
}
