// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"strconv"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Setters that fill a field of a Report only when it is still empty: the
// failure's own message wins over the details and the other messages.

// SetString sets *dst to v when *dst is empty.
func SetString(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

func setSize(dst *grammar.Size, v string) {
	if !dst.Known {
		*dst = grammar.ParseSizeToken(v)
	}
}

func setReplica(r *grammar.Report, v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && !r.HasReplica {
		r.Replica, r.HasReplica = n, true
	}
}

func setPartition(r *grammar.Report, v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && !r.HasPartition {
		r.Partition, r.HasPartition = n, true
	}
}
