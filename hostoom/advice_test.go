// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// TestHint: the verdict's rule gives the one-line advice; no rule, none.
func TestHint(t *testing.T) {
	for _, c := range []struct {
		s             KillReport
		verdict, hint string
	}{
		{KillReport{Kind: KernelKilled, Constraint: ConstraintCgroup}, oom.RetryFutile, RetryRules[0].Hint},
		{KillReport{Kind: KernelKilled, Constraint: ConstraintGlobal}, oom.RetryMayHelp, RetryRules[1].Hint},
		{KillReport{Kind: PodOOMKilled}, oom.RetryUnknown, ""},
	} {
		k := &Kill{KillReport: c.s}
		if verdict, _ := k.Retry(); verdict != c.verdict || k.Hint() != c.hint {
			t.Errorf("%v %q: %s %q, want %s %q", c.s.Kind, c.s.Constraint, verdict, k.Hint(), c.verdict, c.hint)
		}
	}
	if RetryRules[0].Hint == RetryRules[1].Hint || RetryRules[0].Hint == "" {
		t.Error("each rule has its own hint")
	}
}
