// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package verdict

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
)

// WithoutForeign drops the codes printed in foreign statements.
func WithoutForeign(codes []details.CodeAt, st *speaker.Statements) []details.CodeAt {
	if st == nil || st.N == 0 {
		return codes
	}
	kept := codes[:0]
	for _, c := range codes {
		if !st.Foreign(c.At) {
			kept = append(kept, c)
		}
	}
	return kept
}
