package oom

import (
	"strings"
	"testing"
	"time"
)

// Pathological records: every anchor repeated without ever completing a
// message, headlines repeated thousands of times, one enormous line. Work must
// stay linear: doubling the input must not much more than double the time.
func TestHugeInputsStayLinear(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing test: not under -short or the race detector")
	}
	pieces := []string{
		"Attempting to allocate ", "Ran out of memory in memory space hbm. Used ", "RESOURCE_EXHAUSTED: ",
		"Resource exhausted: ", "INTERNAL: ", "allocate 1.00GiB ", "(0x0x0_HBM0) ", "Out of ", "quest for ",
		"bytes) from device: ", "Allocator (GPU_0_bfc) ", "E1000: CompileTimeHbmOom: ", "openxla.org/xla/errors ",
		"Execution of replica ", "while running replica ", "_HBM", "Ran \n\n\n out of \n memory ",
		"Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)\n",
	}
	for _, p := range pieces {
		measure := func(n int) time.Duration {
			text := strings.Repeat(p, n)
			best := time.Hour
			for range 5 { // best of 5: the machine may be shared and loaded
				start := time.Now()
				MayContain(text)
				Recognize(text)
				best = min(best, time.Since(start))
			}
			return best
		}
		small, large := measure(10000), measure(40000)
		// 4x the input: allow up to 8x the time, half what a quadratic
		// algorithm would take.
		if large > 8*small && large > 50*time.Millisecond {
			t.Errorf("%q: 10000 reps took %v, 40000 took %v", p, small, large)
		}
	}
}

func TestOneHugeLine(t *testing.T) {
	text := strings.Repeat("x", 4<<20) + " RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes."
	start := time.Now()
	if !MayContain(text) {
		t.Fatal("MayContain = false")
	}
	r, ok := Recognize(text)
	if !ok || r.Requested.Bytes != 6291456 {
		t.Fatalf("got %+v, %v", r, ok)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("4 MiB line took %v", d)
	}
}

func FuzzRecognize(f *testing.F) {
	for _, fx := range fixtures {
		f.Add(fx.body(f))
	}
	for _, c := range lookalikes {
		f.Add(c.text)
	}
	for _, c := range classRows {
		f.Add(c.body(f))
	}
	for _, c := range classNegatives {
		f.Add(c.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, ok := Recognize(text)
		if !ok {
			return
		}
		if r.Code == "" || r.Name == "" || r.Category == "" || r.Phase == "" || len(r.Remediation) == 0 {
			t.Errorf("incomplete report %+v for %q", r, text)
		}
		if r.Cause != "" && (!r.Requested.Known || !r.Free.Known) {
			t.Errorf("cause without sizes: %+v", r)
		}
	})
}
