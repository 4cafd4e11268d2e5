// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// realCues are the recogniser's cues as the entries give them: the status
// cues, the catalog's names that hold a key, the families', the last-resort
// layer's and the host kills'.
var realCues = append(append([]Cue(nil), StatusCues...),
	Cue{Text: "RuntimeBufferAllocationFailure"}, Cue{Text: "RuntimeProgramAllocationFailure"},
	Cue{Text: "ResourceExhausted"},
	Cue{Text: "INTERNAL_ERROR", Near: "Memory usage: "}, Cue{Text: "Ran out of memory"}, Cue{Text: "Requires #"},
	Cue{Text: "_HBM"}, Cue{Text: "allocate", SizeAfter: true}, Cue{Text: "memory of", SizeAfter: true},
	Cue{Text: "request for", SizeAfter: true}, Cue{Text: "use below", SizeAfter: true},
	Cue{Text: "BufferAssignment OOM"},
	Cue{Text: "ailed to allocate"}, Cue{Text: "able to allocate"}, Cue{Text: "memory to allocate"},
	Cue{Text: "not allocate"}, Cue{Text: "n't allocate"}, Cue{Text: "when allocating"}, Cue{Text: "while allocating"},
	Cue{Text: "rror allocating"}, Cue{Text: "memory allocating"}, Cue{Text: "allocation of", SizeAfter: true},
	Cue{Text: "kB, file-rss:"}, Cue{Text: "kB, limit #"}, Cue{Text: "CONSTRAINT_"},
	Cue{Text: "SIGTERM to process"}, Cue{Text: "MiB, cmdline"}, Cue{Text: "GB / #"},
)

var realPrefilter = BuildPrefilter(realCues)

// TestMayContainRealLines: real lines of the captures, the message fixtures
// and the host kill reports (oom/testdata, hostoom/testdata); each is also
// tried padded past one step, so that both scans answer.
func TestMayContainRealLines(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB with allocator SE_0_space_0 on device 0.", true},
		{"W1122 10:52:34.461392     537 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 93.13GiB (rounded to 100000000000) from the lower end requested by op ", true},
		{"2024-06-24 17:01:13.933585: E external/xla/xla/stream_executor/rocm/rocm_driver.cc:1268] failed to allocate 154.06GiB (165425291480 bytes) from device: HIP_ERROR_OutOfMemory", true},
		{"XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 31.91G of 31.25G hbm. Exceeded hbm capacity by 681.08M.", true},
		{"That was not possible. There are 15.47M free.; (0x1x0_HBM0)", true},
		{"jax.errors.JaxRuntimeError: INTERNAL: Out of memory", true},
		{"ValueError: RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure:", true},
		{"cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 200,000,000,000 bytes (allocated so far: 0 bytes).", true},
		{"[ 2190.840778] memory: usage 65536kB, limit 65536kB, failcnt 111", true},
		{"[ 2190.840861] Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0", true},
		{`sending SIGTERM to process 4242 uid 1000 "python3": oom_score 912, oom_score_adj 0, VmRSS 30122 MiB, cmdline "python3 train.py"`, true},
		{"I1126 11:17:04.033764    1643 pjrt_api.cc:119] GetPjrtApi was found for cuda at /opt/torch/.venv/lib/python3.12/site-packages/jax_plugins/xla_cuda13/xla_cuda_plugin.so", false},
		{"[job] 11:17:52 step 4 loss 0.0002", false},
		{"[ 2190.840631] CPU: 1 UID: 0 PID: 29330 Comm: python3 Not tainted 6.18.44-fc-v782 #1 PREEMPT(none)", false},
		{"NVIDIA H100 80GB HBM3", false},
		{"ERROR: nothing", false},
	} {
		padded := strings.Repeat("step 0 loss 2.4654 ", MinOnePassLen/16) + c.line
		for _, text := range []string{c.line, padded} {
			if got := realPrefilter.MayContain(text); got != c.want {
				t.Errorf("MayContain(%.70q) = %v, want %v", text, got, c.want)
			}
			if got := realPrefilter.MayContainPerKey(text); got != c.want {
				t.Errorf("MayContainPerKey(%.70q) = %v, want %v", text, got, c.want)
			}
		}
	}
}

// TestOrdinaryLinesPass: the ordinary lines of real jobs hold no cue.
func TestOrdinaryLinesPass(t *testing.T) {
	f, err := os.Open("../../testdata/ordinary.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			n++
			if realPrefilter.MayContain(line) || realPrefilter.MayContainPerKey(line) {
				t.Errorf("an ordinary line passes: %q", line)
			}
		}
	}
	if n < 20 {
		t.Errorf("%d ordinary lines", n)
	}
}

// TestCueSyntax: a space stands for any whitespace run and '#' for a digit;
// a near word must follow; a size verb needs a size with a byte unit.
func TestCueSyntax(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Ran \n out  of\tmemory in memory space hbm", true},
		{"Ranout of memory", false},
		{"Requires 3.84T, has 90.96G available", true},
		{"Requires more time", false},
		{"INTERNAL: 'memref.alloca' op current allocation offset upper bound", true},
		{"INTERNAL: Failed to open libtpu.so", false},
		{"device memory of 1.97 GiB", false},
		{"Failed to allocate request for 32.00MiB (33554432B)", true},
		{"Running: 12 reqs", false},
	} {
		if got := realPrefilter.MayContainPerKey(c.text); got != c.want {
			t.Errorf("MayContainPerKey(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestCueKey: a cue's key is the first of ScanKeys it holds.
func TestCueKey(t *testing.T) {
	for _, c := range []struct {
		text string
		at   int
	}{
		{"RESOURCE_EXHAUSTED", 0}, {"_HBM", 2}, {"ERROR_OUT_OF_MEMORY", 1}, {"OOM when allocating", 10},
		{"Ran out of GPU memory when allocating", 0}, {"out of memory", -1}, {"ailed to allocate", 10},
	} {
		if got := CueKey(c.text); got != c.at {
			t.Errorf("CueKey(%q) = %d, want %d", c.text, got, c.at)
		}
	}
	if len(realPrefilter.Scans) != len(ScanKeys) {
		t.Errorf("%d scans for %d keys", len(realPrefilter.Scans), len(ScanKeys))
	}
}

// TestBuildPrefilterRejects: a cue no scan can find is a build error.
func TestBuildPrefilterRejects(t *testing.T) {
	for _, c := range []Cue{{Text: "out of memory"}, {Text: "_HBM0R"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("BuildPrefilter took %q", c.Text)
				}
			}()
			BuildPrefilter([]Cue{c})
		}()
	}
}
