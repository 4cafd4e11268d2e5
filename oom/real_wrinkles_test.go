// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

var realLogLine = regexp.MustCompile(`^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ `)

// realExcerpt returns the log record starting at the line containing anchor:
// that line and its continuation lines, up to the next glog line or Python's
// traceback.
func realExcerpt(t *testing.T, text, anchor string) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if !strings.Contains(l, anchor) {
			continue
		}
		j := i + 1
		for j < len(lines) && !realLogLine.MatchString(lines[j]) && !strings.HasPrefix(lines[j], "Traceback (most recent call last)") {
			j++
		}
		return strings.Join(lines[i:j], "")
	}
	t.Fatalf("no line contains %q", anchor)
	return ""
}

func TestRealWrinkles(t *testing.T) {
	m := loadRealManifest(t)

	t.Run("payload order varies, same report", func(t *testing.T) {
		// Same program, two runs, opposite payload orders.
		a, b := readReal(t, "jit_temps.exception.txt"), readReal(t, "jit_temps_defaultlog.exception.txt")
		if a == b {
			t.Fatal("expected the two captures to differ in payload order")
		}
		ra, oka := Recognize(a)
		rb, okb := Recognize(b)
		if !oka || !okb || !reflect.DeepEqual(ra, rb) {
			t.Errorf("reports differ:\n%+v\n%+v", ra, rb)
		}
		var exFirst, tfFirst int
		for _, c := range realOOMs {
			if c.program != "" && !c.noPayload {
				if c.execFirst {
					exFirst++
				} else {
					tfFirst++
				}
			}
		}
		if exFirst == 0 || tfFirst == 0 {
			t.Errorf("expected both orders among the captures: %d / %d", exFirst, tfFirst)
		}
	})

	t.Run("Source Location Trace blocks", func(t *testing.T) {
		// The driver lines continue with a multi-line block; its header
		// sometimes has a trailing space. The record read from the headline
		// through the block (and, for cuMemAllocAsync, the " Reported by CUDA"
		// line after it) keeps the exact bytes, device and free/total.
		var trailing, bare int
		for _, tc := range []struct {
			file, anchor, family string
			requested            int64
			free, capacity       grammar.Size
		}{
			{"platform_device_put.stderr.txt", "Failed to allocate device memory", "gpu-executor-device-alloc-attempt", 100000000000, grammar.Size{}, grammar.Size{}},
			{"platform_jit.stderr.txt", "Failed to allocate device memory", "gpu-executor-device-alloc-attempt", 180007500304, grammar.Size{}, grammar.Size{}},
			{"prealloc_0995.stderr.txt", "Failed to allocate device memory", "gpu-executor-device-alloc-attempt", m.int(t, "prealloc_0995", "result.memory_stats_at_start.bytes_limit"), grammar.Size{}, grammar.Size{}},
			{"prealloc_100.stderr.txt", "Failed to allocate device memory", "gpu-executor-device-alloc-attempt", m.int(t, "prealloc_100", "result.memory_stats_at_start.bytes_limit"), grammar.Size{}, grammar.Size{}},
			{"cuda_async_device_put.stderr.txt", "cuMemAllocAsync failed", "gpu-cuda-async-allocator", 100000000000, grammar.KnownSize(20701184000), grammar.KnownSize(85017493504)},
			{"cuda_async_jit.stderr.txt", "cuMemAllocAsync failed", "gpu-cuda-async-allocator", 180007500304, grammar.KnownSize(20676018176), grammar.KnownSize(85017493504)},
		} {
			t.Run(tc.file, func(t *testing.T) {
				rec := realExcerpt(t, readReal(t, tc.file), tc.anchor)
				switch {
				case strings.Contains(rec, "\n=== Source Location Trace: === \n"):
					trailing++
				case strings.Contains(rec, "\n=== Source Location Trace: ===\n"):
					bare++
				default:
					t.Fatalf("no Source Location Trace block in:\n%s", rec)
				}
				if !strings.Contains(rec, "\nexternal/xla+/xla/stream_executor/") {
					t.Errorf("no trace frames in:\n%s", rec)
				}
				r, ok := recognizeReal(t, rec)
				if strings.HasSuffix(tc.family, "-attempt") {
					// StreamExecutor's refusal: an attempt, never the failure
					// (the platform allocator's status follows in its own record).
					if ok {
						t.Fatalf("an attempt read as a failure: %+v", r)
					}
					w, ok := RecognizeWarning(rec)
					if !ok || w.Family != tc.family || w.Requested != grammar.KnownSize(tc.requested) || w.Device != "0" || w.Attempts != 1 {
						t.Fatalf("warning = %+v, %v; want %s of %d bytes on device 0", w, ok, tc.family, tc.requested)
					}
					return
				}
				if !ok {
					t.Fatalf("not recognised:\n%s", rec)
				}
				// Larger than the GPU: no allocator setting is offered.
				checkRealReport(t, r, realWant{code: "E0007", family: tc.family, phase: grammar.PhaseRuntime, backend: grammar.BackendGPU, device: "0",
					requested: grammar.KnownSize(tc.requested), free: tc.free, capacity: tc.capacity, cause: grammar.CauseExhaustion,
					advice: []string{realAdvWhole}, absent: []string{realAdvFrac}})
			})
		}
		if trailing == 0 || bare == 0 {
			t.Errorf("expected both header forms: %d with a trailing space, %d without", trailing, bare)
		}
	})

	t.Run("allocator contains no memory", func(t *testing.T) {
		// An empty (lazily allocated) pool prints this instead of the
		// occupancy bar; the BFC record still reads, the line alone is nothing.
		for _, n := range []string{"device_put", "mem_fraction_device_put", "pinned_host_device_put"} {
			text := readReal(t, n+".stderr.txt")
			line := realExcerpt(t, text, "<allocator contains no memory>")
			if !strings.HasSuffix(line, "bfc_allocator.cc:609] <allocator contains no memory>\n") {
				t.Errorf("%s: unexpected line %q", n, line)
			}
			if _, ok := Recognize(line); ok {
				t.Errorf("%s: the line alone was recognised", n)
			}
			at := strings.Index(text, "ran out of memory trying to allocate")
			bfc := text[strings.LastIndex(text[:at], "\n")+1 : strings.Index(text, "Traceback (most recent call last)")]
			if !strings.Contains(bfc, "<allocator contains no memory>") || !strings.Contains(bfc, "pool size 0B") {
				t.Fatalf("%s: warning block lacks the empty-pool lines", n)
			}
			r, ok := recognizeReal(t, bfc)
			if !ok {
				t.Fatalf("%s: BFC warning block not recognised", n)
			}
			requested := m.int(t, n, "result.requested.bytes")
			// The block's "Allocator memory summary" gives what was free
			// (pool free + unallocated) and the pool limit: both less than the
			// request, so the advice is about the pool, not fragmentation.
			free := map[string]int64{"device_put": 63758789509, "mem_fraction_device_put": 4252017623, "pinned_host_device_put": 68719476736}[n]
			w := realWant{code: "E0007", family: "gpu-bfc-allocator", phase: grammar.PhaseRuntime, backend: grammar.BackendGPU, device: "0",
				requested: grammar.KnownSize(realRoundUp256(requested)), free: grammar.KnownSize(free), poolLimit: grammar.KnownSize(free), cause: grammar.CauseExhaustion,
				used:   grammar.KnownSize(0), // the stats' "InUse: 0B": nothing allocated yet
				holder: &realHolder{}, advice: []string{"is free", realAdvPool}}
			if n == "pinned_host_device_put" {
				// xla_gpu_host_bfc: pinned host memory, no device in the
				// allocator's name; its pool is not a share of the GPU.
				w.space, w.device = "host", ""
				w.advice = []string{realAdvHostPool, "larger than XLA's whole pinned host memory pool"}
				w.absent = []string{realAdvFrac, "cuda_async", "cuda_malloc_async"}
			}
			checkRealReport(t, r, w)
		}
	})

	t.Run("VMM pa_budget is the memory fraction of the GPU", func(t *testing.T) {
		// The VMM allocator sizes its budget as BFC sizes its pool: the
		// GPU's total memory (CUDA's figure in cuda_async_device_put) times
		// XLA_PYTHON_CLIENT_MEM_FRACTION (.75), so the fraction advice holds.
		const total = 85017493504
		if !strings.Contains(readReal(t, "cuda_async_device_put.stderr.txt"), fmt.Sprintf("Free memory/Total memory: 20701184000/%d\n", total)) {
			t.Fatal("cuda_async_device_put lacks CUDA's total memory")
		}
		for _, n := range []string{"vmm_device_put", "vmm_jit"} {
			text := readReal(t, n+".stderr.txt")
			line := realExcerpt(t, text, "pa_budget for device")
			if want := fmt.Sprintf("cuda_device_address_vmm_allocator.cc:96] VMM device-address allocator pa_budget for device 0: %d bytes.\n", total*3/4); !strings.HasSuffix(line, want) {
				t.Errorf("%s: %q does not end with %q", n, line, want)
			}
			if r, ok := Recognize(text); !ok || r.PoolLimit != grammar.KnownSize(total*3/4) {
				t.Errorf("%s: PoolLimit = %+v (recognised %v), want %d", n, r.PoolLimit, ok, total*3/4)
			}
		}
	})

	t.Run("JAX traceback filter footer", func(t *testing.T) {
		const footer = "--------------------\nFor simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.\n"
		exc := readReal(t, "autotune_starved.exception.txt")
		re, ok := Recognize(exc)
		if !ok {
			t.Fatal("exception not recognised")
		}
		for _, f := range []string{"autotune_starved.traceback.txt", "autotune_starved.stderr.txt"} {
			text := readReal(t, f)
			if !strings.HasSuffix(text, footer) {
				t.Fatalf("%s does not end with the footer", f)
			}
			if _, ok := Recognize(footer); ok {
				t.Errorf("the footer alone was recognised")
			}
			if f == "autotune_starved.traceback.txt" {
				// The footer (and the frames) change nothing but the
				// exception's type, which str(e) alone does not print.
				rt, ok := Recognize(text)
				if rt.ExceptionType != "jax.errors.JaxRuntimeError" {
					t.Errorf("traceback's exception type %q", rt.ExceptionType)
				}
				rt.ExceptionType = ""
				// str(e) alone shows no framework; the frames show JAX, whose knobs the advice then names.
				want := re
				Reframe(&want, FrameworkJAX)
				if !ok || !reflect.DeepEqual(rt, want) {
					t.Errorf("traceback report differs from the exception's:\n%+v\n%+v", rt, re)
				}
			}
			// Cut the footer off a record: the same report.
			a, _ := Recognize(text)
			b, _ := Recognize(strings.TrimSuffix(text, footer))
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s: the footer changes the report:\n%+v\n%+v", f, a, b)
			}
		}
	})

	t.Run("non-failure log lines alone", func(t *testing.T) {
		// Lines of the captures that look like memory trouble but are not a
		// failure: BFC retries the caller tolerates (freed_by_count=0),
		// rematerialization warnings, the scheduler's base-limit E-line, pool
		// set-up INFO lines, the allocator summaries.
		kinds := map[string]int{}
		for _, n := range append(realQuiet, realNames(realOOMs)...) {
			for _, l := range strings.SplitAfter(readReal(t, n+".stderr.txt"), "\n") {
				for _, k := range []string{"freed_by_count=0", "Can't reduce memory use below", "exceeds the base limit",
					"for BFCAllocator", "Allocator memory summary", "Spatial partitioning summary", "Allocator region growth hint",
					"Bin for ", "Sum Total of in-use chunks", "pa_budget for device"} {
					if strings.Contains(l, k) {
						kinds[k]++
						if r, ok := Recognize(l); ok {
							t.Errorf("%s: recognised %q: %+v", n, l, r)
						}
					}
				}
			}
		}
		for _, k := range []string{"freed_by_count=0", "Can't reduce memory use below", "exceeds the base limit", "for BFCAllocator", "pa_budget for device"} {
			if kinds[k] == 0 {
				t.Errorf("no %q line in the captures", k)
			}
		}
	})
}

func realNames(cs []realOOM) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return out
}

// TestRealBFCSummary: the captures showed that the BFC allocator's "Allocator
// memory summary" line is where a GPU record says what was free; reading it
// gives the cause (a gap these captures revealed, now closed).
func TestRealBFCSummary(t *testing.T) {
	t.Run("BFC allocator memory summary gives the cause", func(t *testing.T) {

		m := loadRealManifest(t)
		for _, tc := range []struct {
			name, tok, cause string // tok: "total free in pool" + "unallocated bytes" as printed
		}{
			// 1.50 GiB requested, 1.96 GiB free in two 1 GiB-ish holes: fragmentation.
			{"mem_fraction_fragmented", "1.96GiB", grammar.CauseFragmentation},
			{"jit_temps", "59.38GiB", grammar.CauseExhaustion},
			{"mem_fraction_jit", "3.96GiB", grammar.CauseExhaustion},
			// pool size 0B (lazy pool): all 59.38 GiB is "unallocated bytes".
			{"device_put", "59.38GiB", grammar.CauseExhaustion},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r, ok := Recognize(readReal(t, tc.name+".stderr.txt"))
				if !ok {
					t.Fatal("not recognised")
				}
				free := m.int(t, tc.name, "result.memory_stats_before_oom.bytes_limit") - m.int(t, tc.name, "result.memory_stats_before_oom.bytes_in_use")
				if realTSLHuman(free) != tc.tok {
					t.Fatalf("manifest free %d prints %q, not %q", free, realTSLHuman(free), tc.tok)
				}
				if !r.Free.Known || realAbsDiff(r.Free.Bytes, free) > realTSLBound(t, tc.tok) {
					t.Errorf("Free = %+v, want about %d (%s)", r.Free, free, tc.tok)
				}
				if r.Cause != tc.cause {
					t.Errorf("Cause = %q, want %q", r.Cause, tc.cause)
				}
				limit := m.int(t, tc.name, "result.memory_stats_before_oom.bytes_limit")
				if !r.PoolLimit.Known || realAbsDiff(r.PoolLimit.Bytes, limit) > realTSLBound(t, realTSLHuman(limit)) {
					t.Errorf("PoolLimit = %+v, want about %d (%s)", r.PoolLimit, limit, realTSLHuman(limit))
				}
				if tc.cause == grammar.CauseFragmentation && !strings.Contains(strings.Join(r.Remediation, "\n"), "fragmented") {
					t.Errorf("remediation does not say memory is fragmented:\n%s", strings.Join(r.Remediation, "\n"))
				}
			})
		}
	})
}
