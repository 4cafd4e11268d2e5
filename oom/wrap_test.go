// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// TestWrapGlueIsTargeted: a break inside a word is joined only when the
// joined word belongs to the grammar (or makes a size), and only for lines
// long enough to be a terminal's wrap.
func TestWrapGlueIsTargeted(t *testing.T) {
	long := strings.Repeat("x", 60) + " "
	for _, c := range []struct{ in, want string }{
		{long + "failed to allocate 1.00GiB (1073741824 bytes) from devic\ne: HIP_ERROR_OutOfMemory",
			long + "failed to allocate 1.00GiB (1073741824 bytes) from device: HIP_ERROR_OutOfMemory"},
		{long + "Out of memory while trying to allo\ncate 6291456 bytes.", long + "Out of memory while trying to allocate 6291456 bytes."},
		{long + "Attempting to allocate 196.0\n0M.", long + "Attempting to allocate 196.00M."},
		{long + "the quick brown\nfox", long + "the quick brown fox"},               // not a grammar word
		{long + "Used 49.34G of 32.00G\nhbm.", long + "Used 49.34G of 32.00G hbm."}, // a size then a word
		{long + "allocate 6291456\nbytes.", long + "allocate 6291456 bytes."},       // bytes is a word, not a unit
		{"short allo\ncate", "short allo cate"},                                     // not a terminal-width line
	} {
		if got := flatten(c.in); got != c.want {
			t.Errorf("flatten(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestDriverLinesAreAttempts: a driver's refusal is an attempt at any level
// (families/families_attempts.go); only a status makes the record a failure.
func TestDriverLinesAreAttempts(t *testing.T) {
	for _, c := range []struct {
		text string
		oom  bool
	}{
		{"I0000 00:00:1758277414.566053 1017489 cuda_driver.cc:1201] failed to allocate 78.39GiB (84169195520 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory", false},
		{"2019-03-12 10:00:00.000000: I tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 3.77G (4046333952 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory", false},
		{"E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate 528.00M (553648128 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory", false},
		// the launcher's INFO header around an ERROR line: still an attempt
		{"I0922 09:49:00.854184 140053800166976 run_docker.py:193] 2021-09-22 16:49:00.853879: E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate 528.00M (553648128 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory", false},
		// a status after the attempts is the failure
		{"I0101 00:00:01.000000 7 cuda_driver.cc:1082] failed to allocate 60.00GiB (64424509440 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n" +
			"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.", true},
	} {
		r, ok := Recognize(c.text)
		if ok != c.oom {
			t.Errorf("Recognize(%.60q...) = %v, want %v", c.text, ok, c.oom)
		}
		if ok && (r.Attempts != 1 || r.Requested != grammar.KnownSize(6291456)) {
			t.Errorf("failure %+v: want 1 attempt and the status's request", r)
		}
		if w, warned := RecognizeWarning(c.text); !c.oom && (!warned || w.Kind != grammar.WarningAllocationAttempt) {
			t.Errorf("RecognizeWarning(%.60q...) = %+v, %v; want an allocation attempt", c.text, w, warned)
		}
	}
}
