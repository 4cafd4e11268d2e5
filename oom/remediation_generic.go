// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

// genericAdvice is the advice of a last-resort finding: honest about what
// is not known, and a hint that the message is new to xla_oom.
func genericAdvice(r *Report) []string {
	var a advice
	what := "memory"
	switch {
	case r.MemorySpace == "host":
		what = "host memory"
	case r.Backend == BackendGPU:
		what = "GPU memory"
	case r.Backend == BackendTPU:
		what = "TPU memory"
	}
	s := "An allocation of " + what + " failed"
	if r.Requested.Known {
		s += " (" + humanSize(r.Requested) + " requested"
		if r.Free.Known {
			s += ", " + humanSize(r.Free) + " free"
		}
		s += ")"
	}
	a.add(s, ". The message is not one of the formats xla_oom knows (family \"generic\"), so its cause and its fixes are not read from it: check what holds memory on the device when it failed (jax.live_arrays(), the allocator's dump, nvidia-smi or the TPU runtime's memory profile).")
	if r.MemorySpace == "host" {
		a.add("Host memory backs transfers and host offload: transfer or offload less at once, and check the memory limit of the process (container or cgroup).")
	} else {
		a.add("Reduce the per-device footprint: a smaller batch or sequence length, jax.checkpoint (remat) on large blocks, bfloat16 for large tensors, donate_argnums for inputs not needed after the step, or shard over more devices.")
	}
	a.add("Report the message (with sizes and names scrubbed as you need) to the xla_oom project, so that it becomes a known family with exact fields and advice.")
	return a
}
