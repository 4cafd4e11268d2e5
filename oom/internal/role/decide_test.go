// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package role

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Real lines of the GPU captures (oom/testdata/jobs, oom/testdata/real), the
// message fixtures and the foreign messages (oom/testdata/foreign).
const (
	platformRefusal = "E1126 11:17:52.375118    2444 cuda_executor.cc:1365] [0] Failed to allocate device memory of 11.18GiB (12000000000 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory"
	platformStatus  = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB with allocator SE_0_space_0 on device 0. [executable_name='jit_activations'] [tf-allocator-allocation-error='']"
	bfcRounded      = "W1122 10:52:34.461392     537 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 93.13GiB (rounded to 100000000000) from the lower end requested by op "
	bfcStatus       = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 93.13GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error='']"
	rocmRaised      = "jax.errors.JaxRuntimeError: INTERNAL: failed to allocate 165425291480 bytes from device: hipErrorOutOfMemory"
	cupyOOM         = "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 200,000,000,000 bytes (allocated so far: 0 bytes)."
	numbaLogger     = "ERROR:numba.cuda.cudadrv.driver:Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY"
	tpuCompileHBM   = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 31.91G of 31.25G hbm. Exceeded hbm capacity by 681.08M."
	cudnnAutotune   = "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Failed to determine best cudnn convolution algorithm for:\n" +
		"%cudnn-conv.1 = (f32[32,64,56,56]{3,2,1,0}, u8[0]{0}) custom-call(f32[32,64,56,56]{3,2,1,0} %p0, f32[64,64,3,3]{3,2,1,0} %p1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, custom_call_target=\"__cudnn$convForward\"\n\n" +
		"Original error: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes.\n"
)

// backoff is jobs/cupy_then_jax_oom.log's record: the pool's five refusals
// at 0.9 of the size each, the BFC allocator's line and the status.
var backoff = strings.Join([]string{
	"E1126 11:17:04.265280    1643 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
	"E1126 11:17:04.266372    1643 cuda_executor.cc:1365] [0] Failed to allocate device memory of 53.45GiB (57387515904 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
	"E1126 11:17:04.267371    1643 cuda_executor.cc:1365] [0] Failed to allocate device memory of 48.10GiB (51648761856 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
	"E1126 11:17:04.268282    1643 cuda_executor.cc:1365] [0] Failed to allocate device memory of 43.29GiB (46483886080 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
	"E1126 11:17:04.269205    1643 cuda_executor.cc:1365] [0] Failed to allocate device memory of 38.96GiB (41835495424 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
	"W1126 11:17:18.215393    1643 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 46.57GiB (rounded to 50000000000) from the lower end requested by op ",
	"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 46.57GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error=''] [executable_name='jit_activations']",
}, "\n")

// TestFailureOfRecord: which statement is the failure, the exact request it
// takes from the others, and the attempts counted on the way.
func TestFailureOfRecord(t *testing.T) {
	cases := []struct {
		name, text  string
		family      string
		requested   int64
		own         bool // an attempt was the failing request itself
		attempts    int
		first, last int64 // the first and the last attempt's request
	}{
		{"the platform allocator's refusal is the status's own request", platformRefusal + "\n" + platformStatus,
			"gpu-allocator-status", 12000000000, true, 1, 12000000000, 12000000000},
		{"the status takes the BFC line's exact bytes", bfcRounded + "\n" + bfcStatus,
			"gpu-allocator-status", 100000000000, false, 0, 0, 0},
		{"the pool backs off five times before the status", backoff,
			"gpu-allocator-status", 50000000000, false, 5, 63763906560, 41835495424},
		{"a driver refusal XLA raised is the failure", rocmRaised,
			"gpu-driver-alloc-status", 165425291480, false, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := decide(t, c.text)
			r, own := rec.failure(t)
			if r.Family != c.family || !r.Requested.Known || r.Requested.Bytes != c.requested || own != c.own {
				t.Errorf("failure %s requesting %+v (own %v), want %s requesting %d (own %v)", r.Family, r.Requested, own, c.family, c.requested, c.own)
			}
			a := rec.attempts
			if a.Count != c.attempts || a.Count > 0 && (a.First.Bytes != c.first || a.Last.Bytes != c.last) {
				t.Errorf("attempts %d from %d to %d, want %d from %d to %d", a.Count, a.First.Bytes, a.Last.Bytes, c.attempts, c.first, c.last)
			}
		})
	}
}

// TestDroppedStatements: a family matches, yet the role takes none of it.
func TestDroppedStatements(t *testing.T) {
	cases := []struct{ name, text string }{
		{"CuPy's own out of memory (another program)", cupyOOM},
		{"the cuDNN autotuner's status (a guard phrase stands before it)", cudnnAutotune},
	}
	for _, c := range cases {
		rec := decide(t, c.text)
		if rec.matched == 0 {
			t.Errorf("%s: no family matches %q: the case tests nothing", c.name, rec.flat)
		}
		if p := Primary(rec.candidates); p >= 0 || len(rec.candidates) > 0 {
			t.Errorf("%s: %d candidates, the primary %d", c.name, len(rec.candidates), p)
		}
	}
}

// TestPrimaryPrefersStatus: the BFC allocator's line comes first, yet the
// returned status is the failure; the line lends its exact bytes.
func TestPrimaryPrefersStatus(t *testing.T) {
	rec := decide(t, bfcRounded+"\n"+bfcStatus)
	if len(rec.candidates) != 2 {
		t.Fatalf("%d candidates, want the allocator line and the status", len(rec.candidates))
	}
	status, line := rec.candidates[0], rec.candidates[1]
	if line.Role != FailureUnlessStatus || status.Role != Failure || line.At > status.At {
		t.Fatalf("verdicts %s at %d, %s at %d", line.Role, line.At, status.Role, status.At)
	}
	if p := Primary(rec.candidates); rec.candidates[p].F.ID != "gpu-allocator-status" {
		t.Errorf("primary %s", rec.candidates[p].F.ID)
	}
	if p := Primary(rec.candidates[:1]); p != 0 {
		t.Errorf("the allocator line alone: primary %d, want it", p)
	}
	r := status.R
	if r.Requested.Bytes != 99997576069 || status.RequestedToken != "93.13GiB" {
		t.Fatalf("the status reads %d from %q", r.Requested.Bytes, status.RequestedToken)
	}
	PreferExact(&r, status.RequestedToken, &line)
	if r.Requested.Bytes != 100000000000 {
		t.Errorf("after PreferExact %d, want the line's 100000000000", r.Requested.Bytes)
	}
	for _, printed := range []string{"46.57GiB", "100000000000"} { // another request's figure; exact already
		r := status.R
		if PreferExact(&r, printed, &line); r.Requested.Bytes != 99997576069 {
			t.Errorf("printed %q: took the line's %d", printed, r.Requested.Bytes)
		}
	}
}

// TestExactFromAttempt: only an attempt that printed the failing request's
// very figure lends its bytes.
func TestExactFromAttempt(t *testing.T) {
	rec := decide(t, backoff)
	cases := []struct {
		printed    string
		read, want int64 // the bytes the status reads, and after
		own        bool
	}{
		{"53.45GiB", 57390828339, 57387515904, true},     // TSL style: the second refusal's
		{"57387515904", 57387515904, 57387515904, true},  // exact, and a refusal's
		{"46.57GiB", 50004067123, 50004067123, false},    // no refusal of that size
		{"50000000000", 50000000000, 50000000000, false}, // exact, but no refusal's
		{"", 50000000000, 50000000000, false},
	}
	for _, c := range cases {
		r := grammar.Report{Requested: grammar.KnownSize(c.read)}
		own := ExactFromAttempt(&r, c.printed, &rec.attempts)
		if own != c.own || r.Requested.Bytes != c.want {
			t.Errorf("%q: own %v, %d bytes; want %v, %d", c.printed, own, r.Requested.Bytes, c.own, c.want)
		}
	}
	if ExactFromAttempt(&grammar.Report{}, "53.45GiB", &rec.attempts) {
		t.Error("a failure of unknown request took an attempt's")
	}
}

// TestMergeFrom: a message of another code lends only where and on what;
// sizes and details move only between messages of one code.
func TestMergeFrom(t *testing.T) {
	gpu, _ := decide(t, platformStatus).failure(t)
	tpu, _ := decide(t, tpuCompileHBM).failure(t)
	if gpu.Device != "0" || tpu.Device != "" || tpu.Code == gpu.Code || !tpu.Capacity.Known {
		t.Fatalf("gpu device %q code %s, tpu device %q code %s", gpu.Device, gpu.Code, tpu.Device, tpu.Code)
	}
	r := tpu
	MergeFrom(&r, &gpu)
	if r.Device != "0" || r.Backend != tpu.Backend || r.Requested != tpu.Requested || r.Capacity != tpu.Capacity {
		t.Errorf("across codes: device %q backend %q requested %+v capacity %+v", r.Device, r.Backend, r.Requested, r.Capacity)
	}
	same := grammar.Report{Code: gpu.Code}
	MergeFrom(&same, &gpu)
	if same.Requested != gpu.Requested || same.Backend != gpu.Backend || same.Device != gpu.Device {
		t.Errorf("one code: requested %+v backend %q device %q", same.Requested, same.Backend, same.Device)
	}
	own := gpu
	MergeFrom(&own, &grammar.Report{Code: gpu.Code, Device: "1", Requested: grammar.KnownSize(1)})
	if own.Device != "0" || own.Requested != gpu.Requested {
		t.Errorf("the failure's own values were overwritten: device %q requested %+v", own.Device, own.Requested)
	}
}

// TestWithoutForeign: the code of XLA's status stays beside another
// program's statement.
func TestWithoutForeign(t *testing.T) {
	rec := decide(t, cupyOOM+"\n"+tpuCompileHBM)
	codes := WithoutForeign(details.FindCodes(rec.flat, nil), &rec.st)
	if c, ok := details.StandaloneCode(codes); !ok || c != grammar.CodeHbm {
		t.Errorf("code %q (%v), want %s", c, ok, grammar.CodeHbm)
	}
	alone := decide(t, tpuCompileHBM)
	if n := len(WithoutForeign(details.FindCodes(alone.flat, nil), &alone.st)); n != 1 {
		t.Errorf("one statement: %d codes", n)
	}
}

// TestVerdictAtPosition: an attempt's and a warning's role where the
// speaker decides.
func TestVerdictAtPosition(t *testing.T) {
	cases := []struct {
		name, text, at string
		attempt        Role
		warning        Role
	}{
		{"XLA's refusal", platformRefusal, "Failed to allocate", Attempt, Warning},
		{"a refusal inside XLA's raised status", rocmRaised, "failed to allocate", Failure, Warning},
		{"CuPy's exception", cupyOOM, "Out of memory", Dropped, Dropped},
		{"Numba's logger", numbaLogger, "cuMemAlloc", Dropped, Dropped},
		{"XLA's refusal after Numba's line", numbaLogger + "\n" + platformRefusal, "Failed to allocate", Attempt, Warning},
	}
	for _, c := range cases {
		rec := decide(t, c.text)
		at := strings.Index(rec.flat, c.at)
		if at < 0 {
			t.Fatalf("%s: %q not in %q", c.name, c.at, rec.flat)
		}
		if v := AttemptAt(&rec.st, at); v != c.attempt {
			t.Errorf("%s: attempt %s, want %s", c.name, v, c.attempt)
		}
		if v := WarningAt(&rec.st, at); v != c.warning {
			t.Errorf("%s: warning %s, want %s", c.name, v, c.warning)
		}
	}
}

func TestKindOf(t *testing.T) {
	if KindOf(grammar.Fatal) != Status || KindOf(grammar.LogOnly) != LogLine {
		t.Errorf("fatal is %s, log-only is %s", KindOf(grammar.Fatal), KindOf(grammar.LogOnly))
	}
	if Failure.String() != "failure" || FailureUnlessStatus.String() != "failure unless a status" || CodeToken.String() != "code" {
		t.Errorf("names %q %q %q", Failure, FailureUnlessStatus, CodeToken)
	}
}
