// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"
	"strings"
)

// hostLimitVar sizes the pinned host memory pool of XLA's GPU client
// (allocator xla_gpu_host_bfc), in GiB: 64 by default, 16 when the pool is
// preallocated. XLA_PYTHON_CLIENT_MEM_FRACTION does not touch that pool.
const hostLimitVar = "XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB"

// pinnedHost advises on host memory pinned for a GPU (transfers, host
// offload, memory_kind="pinned_host" arrays). No GPU setting helps, so none
// is offered; when the failure names XLA's host pool (its allocator, or the
// status's hint to set hostLimitVar) the limit to raise is hostLimitVar.
func (a *advice) pinnedHost(r *Report, flat string) {
	if strings.Contains(flat, "xla_gpu_host_bfc") || strings.Contains(flat, hostLimitVar) {
		set := "raise " + hostLimitVar + " (GiB; default 64, 16 when the pool is preallocated) if the host has the RAM to pin"
		if gib := hostPoolNeedGiB(r); gib > 0 {
			set = "set " + hostLimitVar + " to at least " + strconv.FormatInt(gib, 10) +
				" (GiB; default 64, 16 when the pool is preallocated) if the host has that much RAM to pin"
		}
		if r.Requested.Known && r.PoolLimit.Known && r.Requested.Bytes > r.PoolLimit.Bytes {
			a.add("The request (", humanSize(r.Requested), ") is larger than XLA's whole pinned host memory pool (pool limit ", humanSize(r.PoolLimit),
				"), so freeing other host buffers cannot make room: ", set, ".")
		} else {
			what := "the request"
			if r.Requested.Known {
				what += " (" + humanSize(r.Requested) + ")"
			}
			a.add("XLA's pinned host memory pool could not hold ", what, ": ", set, ".")
		}
	}
	a.add("This is pinned host memory used for transfers and host offload: transfer or offload less at once, or raise the host memory available to the process.")
}

// hostPoolNeedGiB is the smallest host pool, in whole GiB, that holds the
// request and what the pool already held (limit - free, when both are
// known); 0 when the request is unknown.
func hostPoolNeedGiB(r *Report) int64 {
	if !r.Requested.Known {
		return 0
	}
	need := r.Requested.Bytes
	if r.PoolLimit.Known && r.Free.Known && r.Free.Bytes <= r.PoolLimit.Bytes {
		need += r.PoolLimit.Bytes - r.Free.Bytes
	}
	return (need + 1<<30 - 1) >> 30
}
