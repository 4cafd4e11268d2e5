// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bufio"
	"bytes"
	"io"
	"sync"
	"testing"
	"unsafe"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// generatedLog is benchmark traffic (internal/workload: ordinary training
// and serving lines with 0.1 % real OOM messages) written as one log file.
var generatedLog = sync.OnceValue(func() []byte {
	return workload.New(workload.DefaultConfig()).Log(64 << 20)
})

// BenchmarkExplain is `xlaoom explain` over a 64 MiB generated log, text
// output discarded: the throughput of grouping, prefiltering and
// recognising. Peak memory of the binary over a multi-GB stream is measured
// separately (BENCHMARKS.md, "xlaoom explain").
func BenchmarkExplain(b *testing.B) {
	log := generatedLog()
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	var t Totals
	for b.Loop() {
		t = Totals{}
		p := &textPrinter{w: io.Discard}
		if _, err := scan("bench", bytes.NewReader(log), &t, nil, p.finding); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(t.Records), "records/op")
	if t.Failures == 0 {
		b.Fatal("the generated log holds OOMs, none found")
	}
}

// BenchmarkLinesPrefilterOnly is the floor of any streaming reader with the
// processor's prefilter: the same log read line by line with bufio, each line
// put through oom.MayContain, no grouping, no recognition, no output. The
// ratio of BenchmarkExplain to it is what grouping and recognising cost.
func BenchmarkLinesPrefilterOnly(b *testing.B) {
	log := generatedLog()
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		r := bufio.NewReaderSize(bytes.NewReader(log), readerSize)
		passed := 0
		for {
			line, err := r.ReadSlice('\n')
			if oom.MayContain(unsafe.String(unsafe.SliceData(line), len(line))) {
				passed++
			}
			if err != nil {
				break
			}
		}
		if passed == 0 {
			b.Fatal("the generated log holds OOMs, none passed the prefilter")
		}
	}
}
