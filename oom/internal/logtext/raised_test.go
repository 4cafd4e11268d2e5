// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import "testing"

// TestRaised: a traceback or an exception line makes a raised status; a
// log line that names an error does not.
func TestRaised(t *testing.T) {
	for text, want := range map[string]bool{
		"Traceback (most recent call last):\n  File \"/work/main/scripts/gpu-capture/jobs.py\", line 380, in <module>":        true,
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB":                     true,
		"XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M.":                  true,
		"tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor":                          true,
		"cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 200,000,000,000 bytes (allocated so far: 0 bytes).":      true,
		"W1126 11:18:32.683878    3226 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory":                         false,
		"E0912 07:09:13.044581 train.py:330] Failed to stage\nValueError: RESOURCE_EXHAUSTED: Error allocating device buffer": true,
		"  File \"a.py\", line 1, in f\n    jax.errors.JaxRuntimeError: INTERNAL: Out of memory":                              true,
		"Traceback (most recent call last)": true,
		"ERROR:numba.cuda.cudadrv.driver:Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY": false,
		"2Error: x":      false,
		".Error: x":      false,
		"Error code: 12": false,
	} {
		if got := Raised(text); got != want {
			t.Errorf("Raised(%q) = %v, want %v", text, got, want)
		}
	}
}

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
