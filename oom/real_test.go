// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// TestRealCaptureSet makes sure the tables cover the manifest exactly, so a
// new capture cannot go unasserted.
func TestRealCaptureSet(t *testing.T) {
	m := loadRealManifest(t)
	known := map[string]string{}
	for _, c := range realOOMs {
		known[c.name] = "oom"
	}
	for _, n := range realQuiet {
		known[n] = "quiet"
	}
	for n := range m {
		switch known[n] {
		case "":
			t.Errorf("manifest case %q is not asserted by real_test.go", n)
		case "oom":
			if m.get(t, n, "exception_file") != n+".exception.txt" || m.get(t, n, "traceback_file") != n+".traceback.txt" {
				t.Errorf("%s: manifest exception/traceback files differ", n)
			}
		case "quiet":
			if m.get(t, n, "exception_file") != nil || m.int(t, n, "returncode") != 0 {
				t.Errorf("%s: expected a run that raised nothing", n)
			}
		}
		if m.get(t, n, "stderr_file") != n+".stderr.txt" {
			t.Errorf("%s: manifest stderr file differs", n)
		}
	}
	for n := range known {
		if m[n] == nil {
			t.Errorf("case %q is not in the manifest", n)
		}
	}
	// Every capture file on disk belongs to a manifest case.
	for _, kind := range []string{"exception", "traceback", "stderr", "stdout"} {
		files, _ := filepath.Glob(filepath.Join(realDir, "*."+kind+".txt"))
		for _, f := range files {
			n := strings.TrimSuffix(filepath.Base(f), "."+kind+".txt")
			if known[n] == "" || kind != "stderr" && kind != "stdout" && known[n] != "oom" {
				t.Errorf("%s: not a %s file of an asserted case", filepath.Base(f), kind)
			}
		}
	}
	if len(realOOMs) != 18 || len(realQuiet) != 6 {
		t.Errorf("cases: %d OOM + %d quiet, want 18 + 6 (update the report count)", len(realOOMs), len(realQuiet))
	}
}

func TestRealCaptures(t *testing.T) {
	m := loadRealManifest(t)
	for _, c := range realOOMs {
		t.Run(c.name, func(t *testing.T) {
			// alloc: the bytes XLA asked the allocator for, from the manifest.
			var alloc, script int64
			if c.script != "" {
				script = m.int(t, c.name, c.script)
				alloc = script
				if c.allocPath != "" {
					alloc = m.int(t, c.allocCase, c.allocPath)
					if alloc < script || alloc-script > 8<<20 {
						t.Errorf("XLA buffer %d vs script request %d: expected the request plus a little scratch", alloc, script)
					}
				}
			}

			excWant := realWant{code: "E0007", family: c.excFamily, phase: c.phase, backend: grammar.BackendGPU, space: c.space,
				device: "0", program: c.program, instruction: c.instruction, used: c.excUsed, poolLimit: c.excPool,
				holder: &realHolder{}, advice: c.advice, absent: c.absent}
			switch {
			case c.exact:
				n, err := strconv.ParseInt(strings.TrimSuffix(c.token, "B"), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				excWant.requested = grammar.KnownSize(n)
			case c.token != "":
				excWant.requested = grammar.KnownSize(realTSLValue(t, c.token))
			}
			if c.noDevice {
				excWant.device = ""
			}
			head := c.message
			if head == "" {
				head = "Out of memory while trying to allocate " + c.token + " with allocator " + c.allocator + " on device 0."
			}
			if !strings.Contains(head, c.token) {
				t.Fatalf("bad expectation: %q lacks the token %q", head, c.token)
			}
			for _, kind := range []string{"exception", "traceback"} {
				t.Run(kind, func(t *testing.T) {
					text := readReal(t, c.name+"."+kind+".txt")
					if !strings.Contains(text, head) {
						t.Fatalf("capture lacks %q", head)
					}
					realPayloadOrder(t, text, c.program, c.execFirst, !c.noPayload)
					r, ok := recognizeReal(t, text)
					if !ok {
						t.Fatal("not recognised")
					}
					checkRealReport(t, r, excWant)
					if c.exact {
						// The exact figure: the stderr's, related to the
						// manifest's allocation as the relation says.
						if r.Requested.Bytes != c.stderrReq {
							t.Errorf("Requested %d, the stderr's figure is %d", r.Requested.Bytes, c.stderrReq)
						}
						realRelated(t, c.relation, alloc, r.Requested.Bytes)
					}
					// Only the rounded TSL size is printed: it must be the
					// allocator's request as TSL prints it, and the parsed value
					// within TSL's bound of both that request and the script's.
					if alloc != 0 && !c.exact {
						if got := realTSLHuman(alloc); got != c.token {
							t.Errorf("TSL prints %d as %q, capture says %q", alloc, got, c.token)
						}
						bound := realTSLBound(t, c.token)
						for _, ref := range []int64{alloc, script} {
							if d := realAbsDiff(r.Requested.Bytes, ref); d > bound {
								t.Errorf("Requested %d is %d B from manifest %d (bound %d)", r.Requested.Bytes, d, ref, bound)
							}
						}
					}
				})
			}

			t.Run("stderr", func(t *testing.T) {
				text := readReal(t, c.name+".stderr.txt")
				w := excWant
				// The first returned status is the failure: the exception
				// print (for autotune_starved the per-HLO "Could not get config
				// ... Status: RESOURCE_EXHAUSTED: Out of memory ..." logged
				// before it), gpu-allocator-status in every capture; the allocator log
				// lines lend their exact figure and free/total.
				// A status that is not the adapter's (VMM, jaxlib) keeps its
				// own family.
				w.family = "gpu-allocator-status"
				if c.stderrFamily != "" {
					w.family = c.stderrFamily
				}
				w.device = "0"
				if c.stderrNoDevice {
					w.device = ""
				}
				w.requested = grammar.KnownSize(c.stderrReq)
				w.free, w.used, w.capacity, w.poolLimit, w.cause = c.free, c.used, c.capacity, c.pool, c.cause
				w.holder = c.holder
				w.absent = append(append([]string(nil), c.absent...), c.stderrAbsent...)
				w.advice = append(append([]string(nil), c.advice...), c.stderrAdvice...)
				if exc := strings.TrimRight(readReal(t, c.name+".exception.txt"), "\n"); !strings.Contains(text, "\njax.errors.JaxRuntimeError: "+exc+"\n") {
					t.Errorf("stderr lacks Python's print of the exception")
				}
				r, ok := recognizeReal(t, text)
				if !ok {
					t.Fatal("not recognised")
				}
				checkRealReport(t, r, w)
				// The exact figure is what the log printed ...
				if c.stderrLit != "" {
					if lit := fmt.Sprintf(c.stderrLit, c.stderrReq); !strings.Contains(text, lit) {
						t.Errorf("stderr lacks %q", lit)
					}
				}
				// ... and relates to the manifest's allocation.
				realRelated(t, c.relation, alloc, c.stderrReq)
				tok := c.token
				if !c.exact && tok != "" {
					if got := realTSLHuman(c.stderrReq); got != tok {
						t.Errorf("TSL prints exact %d as %q, exception says %q", c.stderrReq, got, tok)
					}
				} else {
					tok = realTSLHuman(c.stderrReq)
				}
				// BFC prints the human size next to the rounded figure.
				if c.stderrLit == realBFCLit {
					if lit := fmt.Sprintf("ran out of memory trying to allocate %s (rounded to %d)", tok, c.stderrReq); !strings.Contains(text, lit) {
						t.Errorf("stderr lacks %q", lit)
					}
				}
			})

			switch c.name {
			case "autotune_starved", "solver_workspace":
				// The 32 MiB autotuning scratch, the cuSOLVER workspace: it
				// could not fit, the largest free block before the failure
				// was smaller.
				if lf := m.int(t, c.name, "result.memory_stats_before_oom.largest_free_block_bytes"); lf >= c.stderrReq {
					t.Errorf("largest free block %d >= request %d", lf, c.stderrReq)
				}
			}
			if c.name == "solver_workspace" {
				// The memory holder's chunks are the fill arrays, exactly.
				if fill := m.int(t, c.name, "result.requested.fill_total_bytes"); fill != c.holder.size {
					t.Errorf("holder holds %d, the script filled %d", c.holder.size, fill)
				}
			}
		})
	}

	for _, n := range realQuiet {
		t.Run(n, func(t *testing.T) {
			if m.get(t, n, "exception_file") != nil {
				t.Fatal("expected no exception")
			}
			for _, kind := range []string{"stderr", "stdout"} {
				t.Run(kind, func(t *testing.T) {
					text := readReal(t, n+"."+kind+".txt")
					if r, ok := recognizeReal(t, text); ok {
						t.Fatalf("recognised a run that did not fail: %+v", r)
					}
					if kind == "stdout" || !realStartup[n] {
						return
					}
					// Start-up preallocation failure, see realStartup.
					limit := m.int(t, n, "result.memory_stats_at_start.bytes_limit")
					if pool := m.int(t, n, "result.memory_stats_after.pool_bytes"); pool >= limit || m.int(t, n, "returncode") != 0 {
						t.Errorf("manifest: pool %d, limit %d: expected a smaller fallback pool and a run that succeeded", pool, limit)
					}
					if lit := fmt.Sprintf("[0] Failed to allocate device memory of %s (%d bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY", realTSLHuman(limit), limit); !strings.Contains(text, lit) {
						t.Errorf("stderr lacks %q", lit)
					}
					w, ok := RecognizeWarning(text)
					want := grammar.Warning{Kind: grammar.WarningAllocationAttempt, Family: "gpu-executor-device-alloc-attempt", Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU,
						Device: "0", Requested: grammar.KnownSize(limit), Attempts: 1, Explanation: grammar.Explanation(grammar.WarningAllocationAttempt)}
					if !ok || w != want {
						t.Fatalf("warning = %+v, %v; want %+v", w, ok, want)
					}
				})
			}
		})
	}

	// stdout of the runs that raised: capture.py's progress lines
	// ("step jit_call: raised jax.errors.JaxRuntimeError"), no OOM text.
	for _, c := range realOOMs {
		if r, ok := Recognize(readReal(t, c.name+".stdout.txt")); ok {
			t.Errorf("%s.stdout.txt recognised: %+v", c.name, r)
		}
	}
}

// realPayloadOrder asserts where [executable_name='...'] stands relative to
// [tf-allocator-allocation-error=”] (the order varies between runs), or,
// when the status is not the allocator adapter's (tfPayload false), that
// only [executable_name='...'] is there.
func realPayloadOrder(t *testing.T, text, program string, execFirst, tfPayload bool) {
	t.Helper()
	tf := strings.Index(text, "[tf-allocator-allocation-error='']")
	ex := strings.Index(text, "[executable_name=")
	if !tfPayload {
		if tf >= 0 {
			t.Error("unexpected [tf-allocator-allocation-error=''] payload")
		}
		if (ex >= 0) != (program != "") || program != "" && !strings.Contains(text, "[executable_name='"+program+"']") {
			t.Errorf("[executable_name=] payload: want %q", program)
		}
		return
	}
	if tf < 0 {
		t.Fatal("no [tf-allocator-allocation-error=''] payload")
	}
	if program == "" {
		if ex >= 0 {
			t.Errorf("unexpected [executable_name=] payload")
		}
		return
	}
	if !strings.Contains(text, "[executable_name='"+program+"']") {
		t.Errorf("no [executable_name='%s']", program)
	}
	if (ex < tf) != execFirst {
		t.Errorf("payload order: executable_name first = %v, want %v", ex < tf, execFirst)
	}
}
