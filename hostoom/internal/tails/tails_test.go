// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package tails

import "testing"

func TestMayEnd(t *testing.T) {
	var s Set
	s.Add(" OOM Killed.", "VmRSS # MiB", ": Out Of Memory")
	for _, c := range []struct {
		text string
		want bool
	}{
		{"slurmstepd: error: Detected 1 oom_kill event in StepId=1.0. Some of the step tasks have been OOM Killed.", true},
		{"… have been OOM Killed.\n", true},      // the line break a reader kept
		{"… have been OOM Killed. \r\n\t", true}, // and other trailing whitespace
		{"… have been OOM Killed.x", false},
		{"have been OOM killed.", false},
		{` "python3": badness 912, VmRSS 30122 MiB`, true},
		{` "python3": badness 912, VmRSS 30.5 MiB`, true}, // a run of digits and dots
		{` "python3": badness 912, VmRSS  MiB`, false},    // no digit
		{` "python3": badness 912, VmRSS x MiB`, false},
		{"MiB", false}, // shorter than any tail
		{"srun: error: n1: task 0: Out Of Memory", true},
		{": Out Of Memory", true},
		{"Out Of Memory", false},
		{"", false},
		{"        \n", false},
	} {
		if got := s.MayEnd(c.text); got != c.want {
			t.Errorf("MayEnd(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestAddRejects(t *testing.T) {
	for _, bad := range []string{"short.", "ends with #", "ends #MiB"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%q) did not panic", bad)
				}
			}()
			var s Set
			s.Add(bad)
		}()
	}
}
