// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// The sizes are those of testdata/jobs: the pool set-up of
// shared_gpu_backoff_exit0 (59.38GiB to 20.71GiB in 11 steps), a pool growth
// series of prealloc_false_leak_oom (8.00GiB to 1.08GiB in 20 steps), the
// platform allocator's own request, and the cudaMallocAsync reservation of
// cuda_async_near_full_oom.
func TestBackOff(t *testing.T) {
	for _, c := range []struct {
		name        string
		first, last int64
		n           int
		want        bool
	}{
		{"pool set-up", 63763906560, 22233092096, 11, true},
		{"pool growth", 8589934592, 1160372480, 20, true},
		{"one step", 63763906560, 57387515904, 2, true},
		{"one refusal", 12000000000, 12000000000, 1, false},
		{"halving", 100000000000, 50000000000, 2, false},
		{"growing", 22233092096, 63763906560, 11, false},
		{"same size twice", 4294967296, 4294967296, 2, false},
		{"unknown", 0, 0, 3, false},
	} {
		if got := BackOff(c.first, c.last, c.n); got != c.want {
			t.Errorf("%s: BackOff(%d, %d, %d) = %v", c.name, c.first, c.last, c.n, got)
		}
	}
}

func TestWarningAdvice(t *testing.T) {
	backoff := grammar.Warning{Kind: grammar.WarningAllocationAttempt, Requested: grammar.KnownSize(63763906560), Last: grammar.KnownSize(22233092096), Attempts: 11}
	reservation := grammar.Warning{Kind: grammar.WarningAllocationAttempt, Requested: grammar.KnownSize(63763120128), Attempts: 1,
		Free: grammar.KnownSize(19529728), Capacity: grammar.KnownSize(85017493504)}
	for _, c := range []struct {
		name  string
		w     grammar.Warning
		first []string // phrases of the first step, the cause with the figures
	}{
		{"back-off", backoff, []string{"asked for 59.38 GiB and backed off 11 times, still refused at 20.71 GiB", "another process", "XLA_PYTHON_CLIENT_MEM_FRACTION"}},
		{"reservation", reservation, []string{"refused 59.38 GiB (once)", "CUDA reported 18.62 MiB free of 79.18 GiB"}},
		{"no size", grammar.Warning{Kind: grammar.WarningAllocationAttempt, Attempts: 3}, []string{"refused 3 allocations"}},
	} {
		steps := WarningAdvice(&c.w)
		if len(steps) != 4 {
			t.Fatalf("%s: %d steps: %q", c.name, len(steps), steps)
		}
		for _, p := range c.first {
			if !strings.Contains(steps[0], p) {
				t.Errorf("%s: first step lacks %q: %s", c.name, p, steps[0])
			}
		}
		all := strings.Join(steps, "\n")
		for _, p := range []string{"nvidia-smi", "XLA_PYTHON_CLIENT_PREALLOCATE=false"} {
			if !strings.Contains(all, p) {
				t.Errorf("%s: no step names %s", c.name, p)
			}
		}
	}
	for _, kind := range grammar.WarningKinds() {
		if kind != grammar.WarningAllocationAttempt && WarningAdvice(&grammar.Warning{Kind: kind}) != nil {
			t.Errorf("%s: advice, none expected", kind)
		}
	}
}
