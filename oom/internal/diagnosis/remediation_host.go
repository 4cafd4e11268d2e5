// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// hostLimitVar sizes the pinned host memory pool of XLA's GPU client
// (allocator xla_gpu_host_bfc), in GiB: 64 by default, 16 when the pool is
// preallocated. XLA_PYTHON_CLIENT_MEM_FRACTION does not touch that pool.
const hostLimitVar = "XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB"

// Pinned host memory for a GPU (transfers, host offload): no GPU setting
// helps; where the failure names XLA's host pool, hostLimitVar is the limit.
var pinnedHostAdvice = AdviceTable{
	LeadRow,
	NoteRow,
	{Name: "larger than the host pool", Action: grammar.ActionSetMemoryLimit, When: func(c AdviceCase) bool { return namesHostPool(c) && larger(c.R.Requested, c.R.PoolLimit) }, Say: func(c AdviceCase) string {
		r := c.R
		return "The request (" + grammar.HumanSize(r.Requested) + ") is larger than XLA's whole pinned host memory pool (pool limit " + grammar.HumanSize(r.PoolLimit) +
			"), so freeing other host buffers cannot make room: " + hostPoolSetting(r) + "."
	}},
	{Name: "host pool full", Action: grammar.ActionSetMemoryLimit, When: func(c AdviceCase) bool { return namesHostPool(c) && !larger(c.R.Requested, c.R.PoolLimit) }, Say: func(c AdviceCase) string {
		what := "the request"
		if c.R.Requested.Known {
			what += " (" + grammar.HumanSize(c.R.Requested) + ")"
		}
		return "XLA's pinned host memory pool could not hold " + what + ": " + hostPoolSetting(c.R) + "."
	}},
	{Name: "transfer less", Action: grammar.ActionReduceHostMemory, When: always,
		Say: sayConst("This is pinned host memory used for transfers and host offload: transfer or offload less at once, or raise the host memory available to the process.")},
}

func namesHostPool(c AdviceCase) bool {
	return strings.Contains(c.Flat, "xla_gpu_host_bfc") || strings.Contains(c.Flat, hostLimitVar)
}

func hostPoolSetting(r *grammar.Report) string {
	if gib := hostPoolNeedGiB(r); gib > 0 {
		return "set " + hostLimitVar + " to at least " + strconv.FormatInt(gib, 10) +
			" (GiB; default 64, 16 when the pool is preallocated) if the host has that much RAM to pin"
	}
	return "raise " + hostLimitVar + " (GiB; default 64, 16 when the pool is preallocated) if the host has the RAM to pin"
}

// hostPoolNeedGiB is the smallest pool in whole GiB that holds the request
// and what the pool already held; 0 when the request is unknown.
func hostPoolNeedGiB(r *grammar.Report) int64 {
	if !r.Requested.Known {
		return 0
	}
	need := r.Requested.Bytes
	if r.PoolLimit.Known && r.Free.Known && r.Free.Bytes <= r.PoolLimit.Bytes {
		need += r.PoolLimit.Bytes - r.Free.Bytes
	}
	return (need + 1<<30 - 1) >> 30
}
