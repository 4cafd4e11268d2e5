// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomattr

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Generic is true (a bool) on a record tagged by the recogniser's last-resort
// layer: a memory failure that no known message family matched (Report.Family
// oom.FamilyGeneric). It is absent on every other record, so a query for it
// finds the messages xla_oom does not know yet.
const Generic = "xla.oom.generic"

// Keys of the BFC allocator dump's memory holder (Report.MemoryHolder): the
// executable whose in-use chunks hold the most bytes, and those bytes.
const (
	HolderProgram = "xla.oom.holder.program"
	HolderSize    = "xla.oom.holder.size"
)

// putGeneric marks a last-resort finding.
func putGeneric(r *oom.Report, attrs pcommon.Map) {
	if r.Family == oom.FamilyGeneric {
		attrs.PutBool(Generic, true)
	}
}

// IsGeneric reports whether attrs carry the last-resort mark.
func IsGeneric(attrs pcommon.Map) bool {
	v, ok := attrs.Get(Generic)
	return ok && v.Type() == pcommon.ValueTypeBool && v.Bool()
}
