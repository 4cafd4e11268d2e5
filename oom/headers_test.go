// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"testing"
)

func TestFlatten(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a  b\t\tc", "a b c"},
		{"Used 21.95G of 15.48G hbm.\n Exceeded hbm capacity by 6.47G.", "Used 21.95G of 15.48G hbm. Exceeded hbm capacity by 6.47G."},
		{"Out \nof memory", "Out of memory"},
		{"  lead\r\n\r\ntrail  \n", "lead trail"},
		{"E0528 07:02:44.350251 1 a.cc:1] Used 1G of\nE0528 07:02:44.350251 1 a.cc:1] 2G hbm.", "Used 1G of 2G hbm."},
		{"(EngineCore_DP0 pid=1) x\n(EngineCore_DP0 pid=1)\n(EngineCore_DP0 pid=1) y", "x y"},
		{"", ""},
	} {
		if got := flatten(c.in); got != c.want {
			t.Errorf("flatten(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// flatten is the default recogniser's flatten, for the tests.
func flatten(text string) string { return defaultRecognizer.wrapWords.Flatten(text) }
