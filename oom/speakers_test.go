// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// foreignMessages reads testdata/foreign/oom_messages.txt: out-of-memory
// messages of other programs, each after a "### " line naming its source.
func foreignMessages(t testing.TB) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "foreign", "oom_messages.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, block := range strings.Split(string(data), "\n### ")[1:] {
		src, text, _ := strings.Cut(block, "\n")
		out[src] = strings.TrimRight(text, "\n")
	}
	if len(out) < 30 {
		t.Fatalf("%d foreign messages", len(out))
	}
	return out
}

// TestForeignMessages: another program's out-of-memory message is never
// tagged, whatever its words: no failure, no warning, in any enclosure.
func TestForeignMessages(t *testing.T) {
	for src, text := range foreignMessages(t) {
		if f := Default().Find(text, true); f.Found != FoundNothing {
			t.Errorf("%s: tagged %v %s/%s %s", src, f.Found, f.Report.Code, f.Report.Family, f.Warning.Kind)
		}
		// What a log pipeline puts around a record (recognition_enclosure_test.go),
		// but for the exceptions of XLA's stack: a status JAX raised with
		// another program's words in it is JAX's.
		for _, e := range enclosures {
			if exceptionEnclosures[e.name] {
				continue
			}
			if f := Default().Find(e.wrap(text), true); f.Found != FoundNothing {
				t.Errorf("%s (%s): tagged %v %s/%s %s", src, e.name, f.Found, f.Report.Code, f.Report.Family, f.Warning.Kind)
			}
		}
	}
}

// TestRaisedStatusIsTheFailure: a status XLA's stack raised is the failure,
// whatever allocator family it carries; the same words on a log line of
// their own keep the attempt rules (families/families_attempts.go). The texts are
// the refusals of the real captures (testdata/jobs) and of the family
// examples, raised as JAX raises a status.
func TestRaisedStatusIsTheFailure(t *testing.T) {
	for _, c := range []struct {
		name, text, family string
		requested          int64
	}{
		{"cudaMallocAsync refusal with CUDA's figures (issue 32)",
			"jax.errors.JaxRuntimeError: INTERNAL: gpu_async_0 cuMemAllocAsync failed to allocate 4294967296 bytes: CUDA error: out of memory (CUDA_ERROR_OUT_OF_MEMORY)\n Reported by CUDA: Free memory/Total memory: 1048576/85899345920",
			"gpu-cuda-async-allocator", 4294967296},
		{"the same, without the figures",
			"jax.errors.JaxRuntimeError: INTERNAL: gpu_async_0 cuMemAllocAsync failed to allocate 4294967296 bytes: CUDA error: out of memory (CUDA_ERROR_OUT_OF_MEMORY)",
			"gpu-cuda-async-allocator", 4294967296},
		{"the pool's reservation size (jobs/cuda_async_near_full_oom.log), raised",
			"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: gpu_async_0 cuMemAllocAsync failed to allocate 63763120128 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n Reported by CUDA: Free memory/Total memory: 19529728/85017493504",
			"gpu-cuda-async-allocator", 63763120128},
		{"a driver refusal raised with no status code",
			"jax.errors.JaxRuntimeError: failed to allocate 154.06GiB (165425291480 bytes) from device: HIP_ERROR_OutOfMemory",
			"gpu-driver-alloc-status", 165425291480},
		{"StreamExecutor's refusal (jobs/platform_near_full_oom.log), raised: no family, the last-resort layer",
			"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate device memory of 11.18GiB (12000000000 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
			generic.FamilyGeneric, 12000000000},
		{"PyTorch/XLA's RuntimeError",
			"RuntimeError: Bad StatusOr access: INTERNAL: gpu_async_0 cuMemAllocAsync failed to allocate 4294967296 bytes: CUDA error: out of memory (CUDA_ERROR_OUT_OF_MEMORY)\n Reported by CUDA: Free memory/Total memory: 1048576/85899345920",
			"gpu-cuda-async-allocator", 4294967296},
		{"TensorFlow",
			"tensorflow.python.framework.errors_impl.InternalError: gpu_async_0 cuMemAllocAsync failed to allocate 4294967296 bytes: CUDA error: out of memory (CUDA_ERROR_OUT_OF_MEMORY)\n Reported by CUDA: Free memory/Total memory: 1048576/85899345920",
			"gpu-cuda-async-allocator", 4294967296},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Default().Find(c.text, true)
			if f.Found != FoundReport || f.Report.Family != c.family || f.Report.Requested != grammar.KnownSize(c.requested) || f.Report.Attempts != 0 {
				t.Errorf("got %v %s %+v attempts %d, want a failure of %s asking %d", f.Found, f.Report.Family, f.Report.Requested, f.Report.Attempts, c.family, c.requested)
			}
			for _, e := range enclosures {
				if exceptionEnclosures[e.name] || e.name == "Python repr" {
					continue // another exception around it
				}
				if f := Default().Find(e.wrap(c.text), true); f.Found != FoundReport || f.Report.Family != c.family {
					t.Errorf("%s: got %v %s, want a failure of %s", e.name, f.Found, f.Report.Family, c.family)
				}
			}
			// The same words on a log line: the attempt rules.
			_, line, _ := strings.Cut(c.text, ": ")
			if strings.Contains(c.name, "reservation") {
				logged := "E1126 11:17:57.846859    2708 gpu_cudamallocasync_allocator.cc:366] " + line
				if w := Default().Find(logged, true); w.Found != FoundWarning || w.Warning.Kind != grammar.WarningAllocationAttempt {
					t.Errorf("logged: got %v %s, want an allocation attempt", w.Found, w.Warning.Kind)
				}
			}
		})
	}
}

// TestExceptionType: the failure's exception, else the record's first one
// that is not another program's.
func TestExceptionType(t *testing.T) {
	for text, want := range map[string]string{
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB with allocator SE_0_space_0 on device 0.":                                 "jax.errors.JaxRuntimeError",
		"ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)":                 "ValueError",
		"W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.50GiB (rounded to 4831838208)requested by op ":        "",
		"RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.":                                                                                                "",
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\njax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB": "jax.errors.JaxRuntimeError",
	} {
		r, ok := Recognize(text)
		if !ok || r.ExceptionType != want {
			t.Errorf("%.60q: exception type %q (%v), want %q", text, r.ExceptionType, ok, want)
		}
	}
}

// TestOwnRefusalIsTheFailure: the platform allocator logs the driver's
// refusal of the very request that failed, then raises its status (a real
// job's record, jobs/platform_near_full_oom.log). That refusal is the
// failure's own: not an attempt on the way (Attempts, xla.oom.attempts, as
// xlaoom explain counts), but known to the report.
func TestOwnRefusalIsTheFailure(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(jobsDir, "platform_near_full_oom.log"))
	if err != nil {
		t.Fatal(err)
	}
	_, rec, _ := strings.Cut(string(data), "[job] 11:17:52 evaluating a large batch\n")
	r, ok := Recognize(rec)
	if !ok || r.Requested != grammar.KnownSize(12000000000) || r.Attempts != 0 || !r.OwnRefused || r.ExceptionType != "jax.errors.JaxRuntimeError" {
		t.Errorf("got %v %+v attempts %d own %v type %q", ok, r.Requested, r.Attempts, r.OwnRefused, r.ExceptionType)
	}
}

// TestHostOOMBesideChainer: CuPy's "Out of memory allocating N bytes
// (allocated so far: N bytes)." that Chainer's trainer prints (the foreign
// corpus holds it alone and with its traceback) is not XLA:CPU's host OOM;
// XLA:CPU's own wordings (xla/pjrt/cpu/cpu_device_memory.cc, the coverage
// table) stay tagged, alone, raised, after a traceback and after the
// Chainer line in one record.
func TestHostOOMBesideChainer(t *testing.T) {
	chainer := "Exception in main training loop: Out of memory allocating 25,600,000 bytes (allocated so far: 3,635,267,072 bytes)."
	if f := Default().Find(chainer, true); f.Found != FoundNothing {
		t.Errorf("Chainer's line tagged %v %s", f.Found, f.Report.Family)
	}
	for text, want := range map[string]int64{
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 41246000000 bytes.":                                                   41246000000,
		"jax.errors.JaxRuntimeError: Out of memory allocating 41246000000 bytes":                                                                        41246000000,
		"RuntimeError: Bad StatusOr access: INTERNAL: Error preparing computation: Out of memory allocating 4503599761588224 bytes.":                    4503599761588224,
		"RESOURCE_EXHAUSTED: Out of memory allocating 1,073,741,824 bytes.":                                                                             1073741824,
		"Traceback (most recent call last):\n  File \"/app/train.py\", line 41, in <module>\n    y = f(x)\nOut of memory allocating 41246000000 bytes.": 41246000000,
		chainer + "\njax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 41246000000 bytes.":                                       41246000000,
	} {
		r, ok := Recognize(text)
		if !ok || r.Family != "cpu-runtime" || r.Requested != grammar.KnownSize(want) {
			t.Errorf("%.70q: %v %s %+v, want cpu-runtime of %d bytes", text, ok, r.Family, r.Requested, want)
		}
	}
}

// TestTracebackFrames: an exception whose class and words name no program
// is another program's where the innermost frame of the traceback it ends
// lies in that program's installed package (speaker/frames.go). The
// tracebacks are PyTorch 1.x's and CuPy 13's as they print them; the
// MemoryError after CuPy's frames is composed (its words are XLA:CPU's, so
// that the frames alone decide).
func TestTracebackFrames(t *testing.T) {
	torch := "Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    loss = model(x).sum()\n" +
		"  File \"/opt/conda/lib/python3.8/site-packages/torch/nn/modules/linear.py\", line 103, in forward\n    return F.linear(input, self.weight, self.bias)\n" +
		"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 12.50 GiB already allocated; 1.06 GiB free; 13.20 GiB reserved in total by PyTorch)\n"
	bfc := "W1126 11:17:52.375118    2444 bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.50GiB (rounded to 4831838208)requested by op "
	if r, ok := Recognize(torch + bfc); !ok || r.Family != "gpu-bfc-allocator" || r.ExceptionType != "" {
		t.Errorf("PyTorch's RuntimeError before XLA's allocator line: %v %s exception type %q, want none", ok, r.Family, r.ExceptionType)
	}
	user := "Traceback (most recent call last):\n  File \"/home/user/train.py\", line 12, in <module>\n    y = step(x)\n"
	if r, ok := Recognize(user + "RuntimeError: boom\n" + bfc); !ok || r.ExceptionType != "RuntimeError" {
		t.Errorf("the user's RuntimeError: exception type %q, want RuntimeError", r.ExceptionType)
	}

	cupy := "Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.12/site-packages/cupy/_creation/basic.py\", line 31, in empty\n" +
		"    return cupy.ndarray(shape, dtype, order=order)\n  File \"cupy/cuda/memory.pyx\", line 1518, in cupy.cuda.memory.SingleDeviceMemoryPool._try_malloc\n"
	jax := "Traceback (most recent call last):\n  File \"/home/user/train.py\", line 12, in <module>\n    y = f(x)\n" +
		"  File \"/usr/local/lib/python3.11/site-packages/jax/_src/api.py\", line 2512, in device_put\n    return _device_put(x)\n"
	words := "MemoryError: Out of memory allocating 1073741824 bytes."
	for name, c := range map[string]struct {
		text   string
		tagged bool
	}{
		"CuPy's frames":             {cupy + words, false},
		"the user's frames":         {user + words, true},
		"JAX's frames":              {jax + words, true},
		"no traceback":              {words, true},
		"another statement between": {cupy + "I1126 11:17:52.375118 2444 train.py:70] retrying\n" + words, true},
	} {
		if _, ok := Recognize(c.text); ok != c.tagged {
			t.Errorf("%s: tagged %v, want %v", name, ok, c.tagged)
		}
	}
}
