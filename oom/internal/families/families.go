// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// FailureGroups is the family table: every group of message families, in matching order. Each
// group's entries live in its families_<group>.go file; this is the one place
// that says which groups exist and in which order they are tried.
//
// The order matters in two ways. Families are tried group by group, entries
// in order, so when two messages of one record fill the same field (a device,
// a size of the same code) the earlier family's value wins; and when two
// families match at the same place, the earlier one is the failure. A new
// group goes where its messages should win over the groups after it.
var FailureGroups = [][]grammar.Family{
	tpuFamilies,          // TPU compiler and runtime messages with sizes
	tpuSizelessFamilies,  // the same messages without sizes: a full message is read by the group above
	gpuFamilies,          // XLA's GPU allocator statuses and the allocator and driver lines around them
	gpuDriverFamilies,    // the CUDA/ROCm driver out of memory outside XLA's pool
	cpuFamilies,          // the host runtime out of RAM
	tensorflowFamilies,   // TensorFlow ops that could not allocate a tensor
	gpuAutotunerFamilies, // last of the failures: its status wraps an example failure whose own message gives the sizes
}

// WarningGroups are the memory-pressure warnings (families_warnings.go). They
// never make a record an OOM, so their order only decides which of two
// warnings at the same place is reported.
var WarningGroups = [][]grammar.WarningFamily{
	warningFamilies,
	attemptFamilies, // allocation attempts: counted in a failure's record, a warning alone (families_attempts.go)
}
