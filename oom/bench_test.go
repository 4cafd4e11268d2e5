// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// benchLines are the ordinary corpus lines of realistic length (80-300 bytes).
func benchLines(b *testing.B) []string {
	var out []string
	for _, l := range ordinaryLines(b) {
		if len(l) >= 80 && len(l) <= 300 {
			out = append(out, l)
		}
	}
	return out
}

var sinkBool bool

// BenchmarkContainsBaseline is the yardstick: one strings.Contains per record.
func BenchmarkContainsBaseline(b *testing.B) {
	lines := benchLines(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkBool = strings.Contains(lines[i%len(lines)], "RESOURCE_EXHAUSTED")
	}
}

func BenchmarkMayContain(b *testing.B) {
	run := func(b *testing.B, lines []string) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkBool = MayContain(lines[i%len(lines)])
		}
	}
	b.Run("ordinary", func(b *testing.B) { run(b, benchLines(b)) })
	b.Run("lookalike", func(b *testing.B) {
		var l []string
		for _, c := range lookalikes {
			l = append(l, c.text)
		}
		run(b, l)
	})
	b.Run("oom", func(b *testing.B) {
		var l []string
		for _, f := range fixtures {
			if f.text != "" { // the one-liners
				l = append(l, f.text)
			}
		}
		run(b, l)
	})
}

// allScans lists MayContain's scans in order.
func allScans() []*logtext.PrefilterScan {
	p := &defaultRecognizer.prefilter
	out := make([]*logtext.PrefilterScan, 0, len(p.Scans))
	for i := range p.Scans {
		out = append(out, &p.Scans[i])
	}
	return out
}

// scanAnchor calls confirm at every occurrence of c until one confirms.
func scanAnchor(s string, c byte, confirm func(s string, i int) bool) bool {
	for off := 0; ; {
		j := strings.IndexByte(s[off:], c)
		if j < 0 {
			return false
		}
		if confirm(s, off+j) {
			return true
		}
		off += j + 1
	}
}

// Alternatives measured while choosing MayContain's design (see logtext/prefilter.go).

// words reports whether s[i:] continues with the given words, each preceded by
// a run of whitespace.
func words(s string, i int, ws ...string) bool {
	for _, w := range ws {
		j := logtext.SkipSpace(s, i)
		if j == i || !logheader.HasAt(s, j, w) {
			return false
		}
		i = j + len(w)
	}
	return true
}

func BenchmarkPrefilterAlternatives(b *testing.B) {
	lines := benchLines(b)
	needles := []string{"RESOURCE_EXHAUSTED", "Resource exhausted", "ResourceExhausted", "out of memory", "Out of memory",
		"Attempting to allocate", "Attempting to reserve", "Aborting compilation early", "Hbm usage", "would exceed memory",
		"Scoped allocation", "memref.alloca", "to allocate", "MallocAsync", "OUT_OF_MEMORY", "OutOfMemory"}
	for _, alt := range []struct {
		name string
		f    func(string) bool
	}{
		{"contains-each-needle", func(s string) bool {
			for _, n := range needles {
				if strings.Contains(s, n) {
					return true
				}
			}
			return false
		}},
		{"scans-via-func-values", func(s string) bool {
			for _, scan := range allScans() {
				if scanAnchor(s, scan.Key, scan.Confirm) {
					return true
				}
			}
			return false
		}},
		{"scans-plus-O", func(s string) bool {
			for _, scan := range allScans() {
				if scanAnchor(s, scan.Key, scan.Confirm) {
					return true
				}
			}
			return scanAnchor(s, 'O', func(s string, i int) bool { return logheader.HasAt(s, i, "Out") && words(s, i+3, "of", "memory") })
		}},
		{"anchor-y-memory", func(s string) bool {
			return scanAnchor(s, 'y', func(s string, i int) bool { return i >= 5 && s[i-5:i] == "memor" })
		}},
	} {
		b.Run(alt.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkBool = alt.f(lines[i%len(lines)])
			}
		})
	}
}

var sinkReport grammar.Report

func BenchmarkRecognize(b *testing.B) {
	file := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", "messages", name))
		if err != nil {
			b.Fatal(err)
		}
		return string(data)
	}
	for _, c := range []struct{ name, text string }{
		{"one-line/E0100", `ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)`},
		{"one-line/E0101", `XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well).`},
		{"one-line/E1000", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 31.91G of 31.25G hbm. Exceeded hbm capacity by 681.08M.`},
		{"one-line/GPU", `E0314 21:29:02.854727  957629 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4831838208 bytes. [tf-allocator-allocation-error='']`},
		{"multi-line/tpu-breakdown", file("tpu-compile-hbm-used_easydel166_breakdown.txt")},
		{"multi-line/vllm-prefixed", file("tpu-compile-hbm-used_vllm_prefixed.txt")},
		{"multi-line/gpu-bfc-dump", file("gpu-allocator-status_alphafold_bfc_then_status.txt")},
		{"multi-line/traceback", file("tpu-compile-hbm-used_jax_traceback.txt")},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkReport, sinkBool = Recognize(c.text)
			}
		})
	}
}

// BenchmarkMayContainRatio times MayContain and the Contains baseline in
// alternating rounds over the ordinary corpus and reports the ratio of their
// best rounds, which stays meaningful on a loaded, shared machine where the
// absolute ns/op of separate benchmarks drift.
func BenchmarkMayContainRatio(b *testing.B) { benchRatio(b, MayContain) }

// BenchmarkMayContainPerKeyRatio is BenchmarkMayContainRatio for one pass
// per key (what texts shorter than one step of the one-pass scan take),
// the alternative the one-pass scan is measured against. A benchmark of its
// own: timed in the same rounds, it perturbs the other.
func BenchmarkMayContainPerKeyRatio(b *testing.B) {
	benchRatio(b, defaultRecognizer.prefilter.MayContainPerKey)
}

func benchRatio(b *testing.B, mayContain func(string) bool) {
	lines := benchLines(b)
	round := func(f func(string) bool) time.Duration {
		start := time.Now()
		for k := 0; k < 200; k++ {
			for _, l := range lines {
				sinkBool = f(l)
			}
		}
		return time.Since(start)
	}
	base := func(s string) bool { return strings.Contains(s, "RESOURCE_EXHAUSTED") }
	bestBase, bestMay := time.Duration(1<<62), time.Duration(1<<62)
	for i := 0; i < b.N; i++ {
		bestBase = min(bestBase, round(base))
		bestMay = min(bestMay, round(mayContain))
	}
	per := float64(200 * len(lines))
	b.ReportMetric(float64(bestBase.Nanoseconds())/per, "baseline-ns/rec")
	b.ReportMetric(float64(bestMay.Nanoseconds())/per, "maycontain-ns/rec")
	b.ReportMetric(float64(bestMay)/float64(bestBase), "ratio")
}

// BenchmarkLastNewline compares lastNewline with strings.LastIndexByte on
// the text before a size in a one-line record (the common case in
// sizeFollowsVerb): a vectorised IndexByte that finds nothing beats the
// byte-by-byte backward loop.
func BenchmarkLastNewline(b *testing.B) {
	before := strings.Repeat("Allocator (GPU_0_bfc) ran out of memory trying to allocate ", 5)[:256]
	b.Run("lastNewline", func(b *testing.B) {
		for range b.N {
			sinkInt = logtext.LastNewline(before)
		}
	})
	b.Run("strings.LastIndexByte", func(b *testing.B) {
		for range b.N {
			sinkInt = strings.LastIndexByte(before, '\n')
		}
	})
}

var sinkInt int
