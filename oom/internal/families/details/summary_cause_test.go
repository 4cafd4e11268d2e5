// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

func TestSummaryCause(t *testing.T) {
	for _, c := range []struct{ summary, want string }{
		{"1.50GiB, total free in pool 1.96GiB, largest free chunk usable by lower end 1.00GiB, unallocated bytes 0B", grammar.CauseFragmentation},
		{"1.50GiB, total free in pool 1.96GiB, largest free chunk usable by lower end 1.50GiB, unallocated bytes 0B", grammar.CauseExhaustion}, // a chunk fits: the failure was elsewhere
		{"1.50GiB, total free in pool 1.00GiB, largest free chunk usable by upper end 1.00GiB, unallocated bytes 6.00GiB", grammar.CauseExhaustion},
		{"1.50GiB, total free in pool 1.96GiB", ""}, // cut: no largest chunk
		{"1.50GiB, total free in pool x, largest free chunk usable by lower end 1.00GiB", ""},
	} {
		if got := summaryCause(c.summary); got != c.want {
			t.Errorf("summaryCause(%q) = %q, want %q", c.summary, got, c.want)
		}
	}
}
