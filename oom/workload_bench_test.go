// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom_test

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

var (
	sinkWorkloadReport oom.Report
	sinkWorkloadOK     bool
)

// BenchmarkRecognizeWorkload is the recogniser's cost (prefilter included)
// on each OOM message the processor benchmarks mix into their traffic,
// one-liners and whole multi-line records (BENCHMARKS.md, "OOM records").
func BenchmarkRecognizeWorkload(b *testing.B) {
	for _, m := range workload.OOMMessages {
		shape := "one-line"
		if m.MultiLine {
			shape = "multi-line"
		}
		b.Run(shape+"/"+m.Family, func(b *testing.B) {
			if !oom.MayContain(m.Text) {
				b.Fatalf("the prefilter rejects %s", m.Family)
			}
			b.ReportAllocs()
			for range b.N {
				if oom.MayContain(m.Text) {
					sinkWorkloadReport, sinkWorkloadOK = oom.Recognize(m.Text)
				}
			}
		})
	}
}
