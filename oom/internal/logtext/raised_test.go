// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import "testing"

// A raised status and an entry Python starts on its own follow one rule.
func TestRaisedLine(t *testing.T) {
	for line, want := range map[string]bool{
		"Traceback (most recent call last):":                             true,
		"Traceback (most recent call last)":                              true, // its colon cut
		"(EngineCore_DP0 pid=896988) Traceback (most recent call last):": true,
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory":  true,
		"    ValueError: bad shape":                                      true,
		`  File "/home/me/train.py", line 194, in run_job`:               false,
		"2 errors: one": false,
		"E0912 07:01:12.120991    4398 train.py:244] Compilation failed":     false,
		"the RuntimeError: text is not where an exception line starts it ok": false,
	} {
		if got := RaisedLine(line); got != want {
			t.Errorf("RaisedLine(%q) = %v, want %v", line, got, want)
		}
		if _, starts := entryStart(line, 0, false); starts != want {
			t.Errorf("entryStart(%q) = %v, RaisedLine %v", line, starts, want)
		}
		if Raised("I0912 07:01:12.000000 1 x.py:1] before\n"+line) != want {
			t.Errorf("Raised(... %q) != %v", line, want)
		}
	}
}
