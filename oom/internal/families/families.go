// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// FailureGroups is every group of message families in matching order: when
// two messages of one record fill the same field, or two families match at
// the same place, the earlier family wins.
var FailureGroups = [][]grammar.Family{
	tpuFamilies,          // TPU compiler and runtime messages with sizes
	tpuSizelessFamilies,  // the same messages without sizes: a full message is read by the group above
	gpuFamilies,          // XLA's GPU allocator statuses and the allocator and driver lines around them
	gpuDriverFamilies,    // the CUDA/ROCm driver out of memory outside XLA's pool
	cpuFamilies,          // the host runtime out of RAM
	tensorflowFamilies,   // TensorFlow ops that could not allocate a tensor
	gpuAutotunerFamilies, // last of the failures: its status wraps an example failure whose own message gives the sizes
}

// WarningGroups are the memory-pressure warnings; their order only decides
// which of two warnings at the same place is reported.
var WarningGroups = [][]grammar.WarningFamily{
	warningFamilies,
	attemptFamilies, // allocation attempts: counted in a failure's record, a warning alone
}
