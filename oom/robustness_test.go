// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"fmt"
	"strings"
	"testing"
)

// pathologicalPieces repeated thousands of times make records where every
// anchor occurs without ever completing a message, headlines repeat, or one
// complete message repeats.
var pathologicalPieces = []string{
	"Attempting to allocate ", "Ran out of memory in memory space hbm. Used ", "RESOURCE_EXHAUSTED: ",
	"Resource exhausted: ", "INTERNAL: ", "allocate 1.00GiB ", "(0x0x0_HBM0) ", "Out of ", "quest for ",
	"bytes) from device: ", "Allocator (GPU_0_bfc) ", "E1000: CompileTimeHbmOom: ", "openxla.org/xla/errors ",
	"Execution of replica ", "while running replica ", "_HBM", "Ran \n\n\n out of \n memory ",
	"Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)\n",
}

// TestPathologicalRecords: a record repeating a piece thousands of times
// reads exactly like one repeating it a few times (the candidate and detail
// bounds hold). How the cost grows with the repetitions is measured by
// BenchmarkPathologicalRecords.
func TestPathologicalRecords(t *testing.T) {
	for _, p := range pathologicalPieces {
		few, fewOK := Recognize(strings.Repeat(p, 40))
		many, manyOK := Recognize(strings.Repeat(p, 10000))
		if fewOK != manyOK || few.Family != many.Family || few.Code != many.Code || few.Requested != many.Requested {
			t.Errorf("%q: 40 repetitions read %s/%s %v, 10000 read %s/%s %v", p, few.Family, few.Code, fewOK, many.Family, many.Code, manyOK)
		}
		if MayContain(strings.Repeat(p, 40)) != MayContain(strings.Repeat(p, 10000)) {
			t.Errorf("%q: MayContain depends on the repetitions", p)
		}
	}
}

// BenchmarkPathologicalRecords: the work must stay linear, so the ns/op of
// x40000 should be about 4x that of x10000 for every piece.
func BenchmarkPathologicalRecords(b *testing.B) {
	for _, p := range pathologicalPieces {
		for _, n := range []int{10000, 40000} {
			text := strings.Repeat(p, n)
			b.Run(fmt.Sprintf("%.24q/x%d", p, n), func(b *testing.B) {
				for range b.N {
					sinkBool = MayContain(text)
					sinkReport, sinkBool = Recognize(text)
				}
			})
		}
	}
}

// TestOneHugeLine: a 4 MiB line with the message at its very end is read
// (BenchmarkOneHugeLine measures it).
func TestOneHugeLine(t *testing.T) {
	text := hugeLine()
	if !MayContain(text) {
		t.Fatal("MayContain = false")
	}
	r, ok := Recognize(text)
	if !ok || r.Requested.Bytes != 6291456 {
		t.Fatalf("got %+v, %v", r, ok)
	}
}

func BenchmarkOneHugeLine(b *testing.B) {
	text := hugeLine()
	b.SetBytes(int64(len(text)))
	for range b.N {
		sinkBool = MayContain(text)
		sinkReport, sinkBool = Recognize(text)
	}
}

func hugeLine() string {
	return strings.Repeat("x", 4<<20) + " RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes."
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
