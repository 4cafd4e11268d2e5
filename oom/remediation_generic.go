// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

// genericAdvice is the advice of a last-resort finding: honest about what
// is not known, and a hint that the message is new to xla_oom.
func genericAdvice(r *Report) []string {
	return genericAdviceTable.walk("generic", adviceCase{r: r}, nil)
}

var genericAdviceTable = adviceTable{
	{name: "what failed", action: ActionInvestigate, when: always, say: func(c adviceCase) string {
		r := c.r
		s := "An allocation of " + lastResortMemory(r) + " failed"
		if r.Requested.Known {
			s += " (" + humanSize(r.Requested) + " requested"
			if r.Free.Known {
				s += ", " + humanSize(r.Free) + " free"
			}
			s += ")"
		}
		return s + ". The message is not one of the formats xla_oom knows (family \"generic\"), so its cause and its fixes are not read from it: check what holds memory on the device when it failed (jax.live_arrays(), the allocator's dump, nvidia-smi or the TPU runtime's memory profile)."
	}},
	{name: "host memory", action: ActionReduceHostMemory, when: isHostSpace,
		say: sayConst("Host memory backs transfers and host offload: transfer or offload less at once, and check the memory limit of the process (container or cgroup).")},
	{name: "device memory", action: ActionShrinkFootprint, when: func(c adviceCase) bool { return !isHostSpace(c) },
		say: sayConst("Reduce the per-device footprint: a smaller batch or sequence length, jax.checkpoint (remat) on large blocks, bfloat16 for large tensors, donate_argnums for inputs not needed after the step, or shard over more devices.")},
	{name: "report the message", action: ActionInvestigate, when: always,
		say: sayConst("Report the message (with sizes and names scrubbed as you need) to the xla_oom project, so that it becomes a known family with exact fields and advice.")},
}

// lastResortMemory names the memory a last-resort finding is about.
func lastResortMemory(r *Report) string {
	switch {
	case r.MemorySpace == "host":
		return "host memory"
	case r.Backend == BackendGPU:
		return "GPU memory"
	case r.Backend == BackendTPU:
		return "TPU memory"
	}
	return "memory"
}
