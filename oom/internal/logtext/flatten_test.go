// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wrapWords is a vocabulary built, as the recogniser builds it, from
// expressions of the entries (copied) and a detail's anchor.
var wrapWords = BuildWrapVocabulary([]string{
	`[Ff]ailed to allocate (?:(?P<requested>\S+) \((?P<requested_exact>\d+) bytes\)|(?P<requested_bytes>\d+) bytes) from device: (?:HIP_ERROR_OutOfMemory|CUDA_ERROR_OUT_OF_MEMORY)`,
	`Out of memory while trying to allocate (?P<requested>\S+)(?: bytes)?\.`,
	`Attempting to allocate (?P<requested>\S+)\. That was not possible\. There are (?P<free>\S+) free\.`,
}, []string{"while running replica"})

// TestFlattenMessages: the message fixtures (oom/testdata/messages) that a
// terminal wrapped, a reply quoted, a launcher prefixed or a container
// runtime split, flattened to the sentence the grammar reads.
func TestFlattenMessages(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"gpu-allocator-status_wrapped_in_allocate.txt", "Execution of replica 0 failed: Resource exhausted: Out of memory while trying to allocate 5520758552 bytes."},
		{"gpu-driver-alloc_wrapped_in_device.txt", "failed to allocate 154.06GiB (165425291480 bytes) from device: HIP_ERROR_OutOfMemory"},
		{"tpu-runtime-buffer_wrapped_in_number.txt", "Attempting to allocate 196.00M. That was not possible. There are 134.44M free.; (1x0x0_HBM0): while running replica 0 and partition 0 of a replicated computation"},
		{"tpu-compile-out-of-memory-no-sizes_quoted_reply.txt", "in <module> out = flash_attention(q, k, v) jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. It should not"},
		{"tpu-compile-hbm-used_vllm_prefixed.txt", "Exceeded hbm capacity by 6.50G. Total hbm usage >= 101.25G: reserved 260.00M program 15.87G"},
		{"tpu-compile-hbm-used_lwm60_wrapped.txt", "Used 21.95G of 15.48G hbm. Exceeded hbm capacity by 6.47G. Total hbm usage >= 22.73G:"},
		{"tpu-runtime-buffer_cri_partial_line.txt", "There are 6.43M free.; (0x0x1_HBM0)"},
	} {
		b, err := os.ReadFile(filepath.Join("../../testdata/messages", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if flat := wrapWords.Flatten(string(b)); !strings.Contains(flat, c.want) {
			t.Errorf("%s: flattened to\n%q\nwhich lacks\n%q", c.file, flat, c.want)
		}
	}
}

// TestWrapJoinsOnlyGrammarWords: a break inside a word joins only where the
// joined word is the grammar's, a number or a size, and only after a line as
// long as a terminal's.
func TestWrapJoinsOnlyGrammarWords(t *testing.T) {
	long := "E external/org_tensorflow/tensorflow/compiler/xla/python/local_client.cc:672] "
	for _, c := range []struct{ in, want string }{
		{long + "Out of memory while trying to allo\ncate 6291456 bytes.", "Out of memory while trying to allocate 6291456 bytes."},
		{long + "Attempting to allocate 196.0\n0M.", "Attempting to allocate 196.00M."},
		{long + "Used 49.34G of 32.00\nG hbm.", "Used 49.34G of 32.00G hbm."},
		{long + "allocate 1.97G\niB", "allocate 1.97GiB"},
		{long + "allocate 1.97Gi\nB", "allocate 1.97GiB"},
		{long + "the quick brown\nfox", "the quick brown fox"},
		{long + "Used 49.34G of 32.00G\nhbm.", "Used 49.34G of 32.00G hbm."},
		{long + "allocate 6291456\nbytes.", "allocate 6291456 bytes."},
		{"short allo\ncate", "short allo cate"},
	} {
		if got := wrapWords.Flatten(c.in); !strings.HasSuffix(got, c.want) {
			t.Errorf("Flatten(%q)\n got %q\nwant it to end %q", c.in, got, c.want)
		}
	}
}

// TestFlattenEnclosures: escapes, colours and markers around real messages.
func TestFlattenEnclosures(t *testing.T) {
	const want = "ValueError: RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)"
	for _, c := range []struct{ name, in, want string }{
		{"JSON-escaped", `ValueError: RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure:\nError allocating device buffer: Attempting to allocate 8.00M.\nThat was not possible. There are 6.43M free.; (0x0x1_HBM0)\n`, want},
		{"tab-escaped", `ValueError: RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure:\tError allocating device buffer: Attempting to allocate 8.00M.\r\nThat was not possible. There are 6.43M free.; (0x0x1_HBM0)`, want},
		{"pdb's marker", "*** ValueError: RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure:\n# Error allocating device buffer: Attempting to allocate 8.00M.\n> > That was not possible. There are 6.43M free.; (0x0x1_HBM0)", want},
		{"Jupyter's colours", "\x1b[0;31mXlaRuntimeError\x1b[0m: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M.\x1b[0m That was not possible. There are 6.43M free.; (0x0x1_HBM0)",
			"XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)"},
	} {
		if got := wrapWords.Flatten(c.in); got != c.want {
			t.Errorf("%s: Flatten\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if got := StripANSI("\x1b[1;36m(EngineCore_DP0 pid=896988)\x1b[0;0m ERROR \x1b[9"); got != "(EngineCore_DP0 pid=896988) ERROR \x1b[9" {
		t.Errorf("StripANSI: %q", got)
	}
	if s := "Failed to allocate 1.00GiB"; UnescapeBreaks(s) != s {
		t.Errorf("UnescapeBreaks changed %q", s)
	}
}

// TestFlattenLevels: the INFO spans, log entries and statements of a real
// record (jobs/cupy_then_jax_oom.log, shortened).
func TestFlattenLevels(t *testing.T) {
	text := strings.Join([]string{
		"I1126 11:17:04.075245    1643 gpu_helpers.cc:162] XLA backend allocating 59.38GiB (63763906560 bytes) on device 0 for BFCAllocator.",
		"E1126 11:17:04.265280    1643 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
		"=== Source Location Trace: ===",
		"external/xla+/xla/stream_executor/cuda/cuda_status.cc:45",
		"Traceback (most recent call last):",
		`  File "/work/main/scripts/gpu-capture/jobs.py", line 194, in run_job`,
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 46.57GiB with allocator GPU_0_bfc on device 0.",
	}, "\n")
	var info InfoLines
	var entries Entries
	type begun struct {
		at     int
		header string
	}
	var begins []begun
	var finished string
	marks := StatementMarks{
		Starts: func(line string) bool { return strings.HasPrefix(line, TracebackHead) || ExceptionLine(line) },
		Begin:  func(at int, header, _ string) { begins = append(begins, begun{at, header}) },
		Single: func(string) { t.Error("a record of several lines taken for one statement") },
		Finish: func(flat string) { finished = flat },
	}
	flat := wrapWords.FlattenLevels(text, &info, &entries, &marks)
	if finished != flat {
		t.Errorf("Finish was told %q", finished)
	}
	backend := strings.Index(flat, "XLA backend allocating")
	refusal := strings.Index(flat, "[0] Failed to allocate")
	status := strings.Index(flat, "jax.errors.JaxRuntimeError")
	if backend != 0 || refusal < 0 || status < 0 {
		t.Fatalf("flattened to %q", flat)
	}
	if !info.Contains(backend) || info.Contains(refusal) || info.Contains(status) {
		t.Errorf("INFO at the backend line %v, the refusal %v, the status %v", info.Contains(backend), info.Contains(refusal), info.Contains(status))
	}
	levels := ""
	for k := range entries.Len() {
		_, _, lv := entries.At(k, flat)
		levels += string(max(lv, '0'))
	}
	if levels != "IE00" {
		t.Errorf("entry levels %q, want IE00 (the traceback and the status start their own)", levels)
	}
	// A statement begins where its first line's text goes, at the space
	// that joins it to the one before.
	firsts := []string{"XLA backend allocating", "[0] Failed to allocate", TracebackHead, "jax.errors.JaxRuntimeError"}
	if len(begins) != len(firsts) {
		t.Fatalf("%d statements begin, want %d: %v", len(begins), len(firsts), begins)
	}
	for k, b := range begins {
		if !strings.HasPrefix(strings.TrimPrefix(flat[b.at:], " "), firsts[k]) {
			t.Errorf("statement %d begins at %q", k, flat[b.at:min(len(flat), b.at+30)])
		}
	}
	if HeaderLevel(begins[1].header) != 'E' || begins[3].header != "" {
		t.Errorf("headers %+v", begins)
	}

	one := "jax.errors.JaxRuntimeError: INTERNAL: Out of memory"
	var single string
	marks.Single = func(s string) { single = s }
	entries = Entries{}
	if got := wrapWords.FlattenLevels(one, nil, &entries, &marks); got != one || single != one || entries.Len() != 1 {
		t.Errorf("one line: %q, single %q, %d entries", got, single, entries.Len())
	}
}
