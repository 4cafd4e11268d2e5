// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// AllocatorBackend reads the backend from an allocator name (GPU_0_bfc,
// gpu_async_1, cuda_host_bfc, ...).
func AllocatorBackend(name string) string {
	l := strings.ToLower(name)
	switch {
	case strings.Contains(l, "gpu"), strings.Contains(l, "cuda"), strings.Contains(l, "rocm"), strings.Contains(l, "hip"):
		return BackendGPU
	case strings.Contains(l, "tpu"):
		return BackendTPU
	case strings.Contains(l, "cpu"):
		return BackendCPU
	}
	return ""
}

// AllocatorDevice reads the device ordinal from an allocator name: the first
// all-digit part between underscores (GPU_0_bfc -> 0, gpu_async_1 -> 1).
func AllocatorDevice(name string) string {
	for part := range strings.SplitSeq(name, "_") {
		if part != "" && logtext.DigitsEnd(part, 0) == len(part) {
			return part
		}
	}
	return ""
}
