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

// setInt sets *dst to v and *has when *has is not set yet.
func setInt(dst *int64, has *bool, v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && !*has {
		*dst, *has = n, true
	}
}
