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

// Last is MayEnd's first test: it passes every text MayEnd passes.
func TestLastPassesWhatMayEndPasses(t *testing.T) {
	var s Set
	s.Add(" OOM Killed.", "VmRSS # MiB", ": Out Of Memory", `resourceName="memory"`)
	for _, c := range []struct {
		text      string
		last, may bool
	}{
		{"slurmstepd: error: Detected 2 oom_kill events in StepId=1.batch. Some of the step tasks have been OOM Killed.", true, true}, // Slurm 23.02+
		{"srun: error: n1: task 0: Out Of Memory", true, true},                                                                        // srun 23.02+
		{`I0606 eviction_manager.go:366] "Eviction manager: must evict pod(s) to reclaim" resourceName="memory"`, true, true},         // kubelet 1.2x
		{"… have been OOM Killed.\n", true, true},
		{"step 4 loss 0.25 lr 0.001 took 812.3ms", false, false}, // ends with 's'
		{"epoch done.", true, false}, // '.' passes Last, MayEnd decides
		{"x", false, false},
		{"", false, false},
	} {
		if got := s.Last(c.text); got != c.last {
			t.Errorf("Last(%q) = %v, want %v", c.text, got, c.last)
		}
		if got := s.MayEnd(c.text); got != c.may {
			t.Errorf("MayEnd(%q) = %v, want %v", c.text, got, c.may)
		}
	}
}
