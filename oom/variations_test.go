// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// base is one family's core message, as the C++ code formats it, without any
// status, code, wrapper or header; want is what every variation must read.
type base struct {
	id         string
	msg        string
	code, name string // catalog code and name the message prints with (code-only forms)
	tpu        bool   // TPU message: XRT-style wrappers apply
	logOnly    bool   // log line, never a returned status: no status/wrapper variations
	want       want
}

var bases = []base{
	{id: "tpu-compile-hbm-used", code: "E1000", name: "CompileTimeHbmOom", tpu: true,
		msg:  "XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.",
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(52978421596), capacity: b(34359738368), exceeded: b(18618683228)}},
	{id: "tpu-compile-hbm-used-vmem", code: "E1001", name: "CompileTimeScopedVmemOom", tpu: true,
		msg:  "Ran out of memory in memory space vmem. Used 32.42M of 16.00M vmem. Exceeded vmem capacity by 16.42M.",
		want: want{code: "E1001", family: "tpu-compile-hbm-used", backend: "tpu", space: "vmem", used: b(33994834), capacity: b(16777216), exceeded: b(17217618)}},
	{id: "tpu-compile-early-abort", code: "E1000", name: "CompileTimeHbmOom", tpu: true,
		msg:  "Compilation failure: Aborting compilation early because it's unlikely to have enough memory. Requires 3.84T, has 90.96G available.",
		want: want{code: "E1000", family: "tpu-compile-early-abort", backend: "tpu", requested: b(4222124650660), free: b(97667556311), capacity: b(97667556311), cause: "exhaustion"}},
	{id: "tpu-compile-hlo-temporaries", code: "E1000", name: "CompileTimeHbmOom", tpu: true,
		msg:  "Ran out of memory on HBM, the total memory required for HLO temporaries (4.00T) exceeds available HBM (15.75G)",
		want: want{code: "E1000", family: "tpu-compile-hlo-temporaries", backend: "tpu", space: "hbm", requested: b(4398046511104), free: b(16911433728), capacity: b(16911433728), cause: "exhaustion"}},
	{id: "tpu-compile-tensorcore-sparsecore-hbm", code: "E1000", name: "CompileTimeHbmOom", tpu: true,
		msg:  "TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, exceeding available bytes: 95.74G",
		want: want{code: "E1000", family: "tpu-compile-tensorcore-sparsecore-hbm", backend: "tpu", space: "hbm", used: b(224326141870), capacity: b(102800042230)}},
	{id: "tpu-compile-allocation-exceeds-memory", code: "E1000", name: "CompileTimeHbmOom", tpu: true,
		msg:  "Allocation (size=107374182400) would exceed memory (size=17179869184) :: #allocation7 [shape = 'u8[327680,327680]{1,0:T(8,128)(4,1)}', space=hbm, size = 0xffffffffffffffff, tag = 'output of xor_convert_fusion@{}'] :: <no-hlo-instruction>",
		want: want{code: "E1000", family: "tpu-compile-allocation-exceeds-memory", backend: "tpu", space: "hbm", requested: b(107374182400), capacity: b(17179869184)}},
	{id: "tpu-compile-vmem-stack", code: "E1001", name: "CompileTimeScopedVmemOom", tpu: true,
		msg:  "Ran out of memory in memory space vmem while allocating on stack for %my-custom-kernel = bf16[2048,4096]{1,0:T(8,128)(2,1)} custom-call(...)",
		want: want{code: "E1001", family: "tpu-compile-vmem-stack", backend: "tpu", space: "vmem", instr: "%my-custom-kernel"}},
	{id: "tpu-compile-scoped-vmem", code: "E1001", name: "CompileTimeScopedVmemOom", tpu: true,
		msg:  "Scoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M.",
		want: want{code: "E1001", family: "tpu-compile-scoped-vmem", backend: "tpu", space: "vmem", requested: b(38010880), capacity: b(33554432), exceeded: b(4456448)}},
	{id: "tpu-runtime-buffer", code: "E0100", name: "RuntimeBufferAllocationFailure", tpu: true,
		msg:  "Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)",
		want: want{code: "E0100", family: "tpu-runtime-buffer", backend: "tpu", space: "hbm", device: "0x0x1_HBM0", requested: b(8388608), free: b(6742344), cause: "exhaustion"}},
	{id: "tpu-runtime-program-load", code: "E0101", name: "RuntimeProgramAllocationFailure", tpu: true,
		msg: "Error loading program 'jit_step': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.",
		want: want{code: "E0101", family: "tpu-runtime-program-load", backend: "tpu", program: "jit_step", requested: b(31664646390), free: b(154811761), reserved: b(0),
			reservable: b(154811761), cause: "exhaustion"}},
	{id: "tpu-compile-sparsecore-offset", code: "E3000", name: "CompileTimeSparseCoreAllocationFailure", tpu: true,
		msg:  "'memref.alloca' op current allocation offset upper bound (140704 words) exceeds the legitimate user allocatable offset upper bound (131071 words) in memory space 201 when allocating 23440 words.",
		want: want{code: "E3000", family: "tpu-compile-sparsecore-offset", backend: "tpu", space: "tilespmem", words: grammar.SparseCoreWords{Offset: 140704, Limit: 131071, Requested: 23440}}},
	{id: "gpu-allocator-status", code: "E0007", name: "ResourceExhausted",
		msg:  "Out of memory while trying to allocate 2110783616 bytes.",
		want: want{code: "E0007", family: "gpu-allocator-status", requested: b(2110783616)}},
	{id: "gpu-allocator-status-tsl", code: "E0007", name: "ResourceExhausted",
		msg:  "Out of memory while trying to allocate 896.00MiB with allocator GPU_0_bfc on device 0.",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", requested: b(939524096)}},
	{id: "gpu-platform-allocator", code: "E0007", name: "ResourceExhausted",
		msg:  "Failed to allocate request for 154.06GiB (165425291480B) on device ordinal 0",
		want: want{code: "E0007", family: "gpu-platform-allocator", backend: "gpu", device: "0", requested: b(165425291480)}},
	{id: "cpu-runtime", code: "E0007", name: "ResourceExhausted",
		msg:  "Out of memory allocating 41246000000 bytes.",
		want: want{code: "E0007", family: "cpu-runtime", backend: "cpu", requested: b(41246000000)}},
	{id: "gpu-bfc-allocator", logOnly: true,
		msg:  "Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.97GiB (rounded to 2110783744)requested by op",
		want: want{code: "E0007", family: "gpu-bfc-allocator", backend: "gpu", device: "0", requested: b(2110783744)}},
	{id: "gpu-cuda-async-allocator", logOnly: true,
		msg:  "gpu_async_1 cuMemAllocAsync failed to allocate 1225195446464 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
		want: want{code: "E0007", family: "gpu-cuda-async-allocator", backend: "gpu", device: "1", requested: b(1225195446464)}},
}

var statuses = []string{"RESOURCE_EXHAUSTED: ", "Resource exhausted: "}

// wrappers put a status into an exception or a log context. A wrapper with
// ownStatus carries its own status line, so the message follows bare.
var wrappers = []struct {
	name, prefix string
	ownStatus    bool
	tpuOnly      bool
	rp           string
}{
	{name: "none"},
	{name: "XlaRuntimeError", prefix: "XlaRuntimeError: "},
	{name: "xla_extension", prefix: "jaxlib.xla_extension.XlaRuntimeError: "},
	{name: "_jax", prefix: "jaxlib._jax.XlaRuntimeError: "},
	{name: "JaxRuntimeError", prefix: "jax.errors.JaxRuntimeError: "},
	{name: "ValueError", prefix: "ValueError: "},
	{name: "RuntimeError", prefix: "RuntimeError: "},
	{name: "BadStatusOr", prefix: "RuntimeError: Bad StatusOr access: "},
	{name: "fetch value", prefix: "2023-04-08 11:22:09.148143: F tensorflow/tsl/platform/statusor.cc:33] Attempting to fetch value instead of handling error "},
	{name: "julia", prefix: "ERROR: LoadError: "},
	{name: "TF root errors", prefix: "tensorflow.python.framework.errors_impl.ResourceExhaustedError: 2 root error(s) found.\n  (0) "},
	{name: "execution of replica", prefix: "Execution of replica 3 failed: ", rp: "r3"},
	{name: "XRT from job", prefix: "RuntimeError: Resource exhausted: From /job:tpu_worker/replica:0/task:0:\n", ownStatus: true, tpuOnly: true},
	{name: "simplified traceback", prefix: "jax.errors.SimplifiedTraceback: For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File \"t.py\", line 6, in <module>\n    f()\njax.errors.JaxRuntimeError: "},
}

var headers = []struct{ name, prefix string }{
	{"none", ""},
	{"glog", "E0528 07:02:44.350251   27487 pjrt_stream_executor_client.cc:2826] "},
	{"tsl", "2024-05-28 07:02:44.349554: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2732] "},
	{"nested", "I0922 09:49:00.854184 140053800166976 run_docker.py:193] 2021-09-22 16:49:00.853879: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/pjrt_stream_executor_client.cc:2040] "},
	{"pre-init", "E0000 00:00:1758277414.566053 1017489 pjrt_client.cc:136] "},
	{"old tf", "E tensorflow/compiler/xla/xla_client/xla_util.cc:88] "},
	{"mpi", "[1,2]<stderr>:"},
	{"mpi+glog", "[1,2]<stderr>:E0528 07:02:44.350251   27487 pjrt_stream_executor_client.cc:2826] "},
	{"vllm", "(EngineCore_DP0 pid=896988) ERROR 09-19 10:23:41 [core.py:700] "},
	{"k8s", "2025-06-03T17:44:12.301945812Z stderr F "},
	{"python logging", "ERROR:absl:"},
}

// codeForms wrap a message in the error-code syntax of every era.
var codeForms = []struct {
	name string
	wrap func(b base, msg string) string
}{
	{"E: space", func(b base, m string) string { return b.code + ": " + b.name + ": " + m }},
	{"E: newline", func(b base, m string) string { return b.code + ": " + b.name + ":\n" + m }},
	{"factory + trailer", func(b base, m string) string {
		return b.code + ": " + b.name + ":\n" + m + "\nSee https://openxla.org/xla/errors/error_" + b.code[1:] + " for more details."
	}},
	{"bare name", func(b base, m string) string { return b.name + ":\n" + m }},
	{"trailer only", func(b base, m string) string {
		return m + "\nSee https://openxla.org/xla/errors/error_" + b.code[1:] + " for more details."
	}},
	{"old url", func(b base, m string) string {
		return b.code + ": " + b.name + ":\n" + m + "\nhttps://openxla.org/xla/errors#e" + b.code[1:]
	}},
}

// check runs one variation: MayContain must pass it and Recognize must read
// the base's fields.
func (bs base) check(t *testing.T, label, text, rp string) {
	t.Helper()
	if !MayContain(text) {
		t.Errorf("%s: MayContain = false for %q", label, text)
		return
	}
	r, ok := Recognize(text)
	if !ok {
		t.Errorf("%s: not recognised: %q", label, text)
		return
	}
	w := bs.want
	w.rp = rp
	t.Run(label, func(t *testing.T) { checkReport(t, r, w) })
}

func TestVariationsWrappersHeaders(t *testing.T) {
	for _, bs := range bases {
		if bs.logOnly {
			continue
		}
		forEachWrapping(bs.msg, bs.tpu, func(label, text, rp string) {
			bs.check(t, bs.id+"/"+label, text, rp)
		})
	}
}

// forEachWrapping hands fn msg under every status spelling, exception
// wrapper (the XRT ones only for a TPU message) and log header, with a label
// naming the three and the replica/partition the wrapper prints.
func forEachWrapping(msg string, tpu bool, fn func(label, text, rp string)) {
	for _, st := range statuses {
		for _, wr := range wrappers {
			if wr.tpuOnly && !tpu {
				continue
			}
			wrapped := wr.prefix + st + msg
			if wr.ownStatus {
				wrapped = wr.prefix + msg
			}
			for _, h := range headers {
				fn(st[:8]+"/"+wr.name+"/"+h.name, h.prefix+wrapped, wr.rp)
			}
		}
	}
}

func TestVariationsCodeForms(t *testing.T) {
	for _, bs := range bases {
		if bs.logOnly {
			continue
		}
		for _, st := range statuses {
			for _, cf := range codeForms {
				text := "jax.errors.JaxRuntimeError: " + st + cf.wrap(bs, bs.msg)
				bs.check(t, bs.id+"/"+st[:8]+"/"+cf.name, text, "")
			}
		}
	}
}

// Every single space of the message may be a line break, alone, with an
// indent, or with the prefix a re-logged continuation line gets.
func TestVariationsWrapped(t *testing.T) {
	breaks := []string{"\n", "\n    ", "\r\n", "\nE0528 07:02:44.350251   27487 pjrt_stream_executor_client.cc:2826] ", "\n(EngineCore_DP0 pid=896988) "}
	for _, bs := range bases {
		prefix := "XlaRuntimeError: RESOURCE_EXHAUSTED: "
		if bs.logOnly {
			prefix = "W external/xla/xla/tsl/framework/bfc_allocator.cc:501] "
		}
		for i := 0; i < len(bs.msg); i++ {
			if bs.msg[i] != ' ' {
				continue
			}
			for _, br := range breaks {
				text := prefix + bs.msg[:i] + br + bs.msg[i+1:]
				bs.check(t, bs.id+"/wrap@"+strconv.Itoa(i), text, "")
			}
		}
	}
}

func TestVariationsLogOnlyHeaders(t *testing.T) {
	for _, bs := range bases {
		if !bs.logOnly {
			continue
		}
		for _, h := range headers {
			bs.check(t, bs.id+"/"+h.name, h.prefix+bs.msg, "")
		}
	}
}

// Bare messages (no status, code or wrapper) are read the same when
// MayContain lets them through (a cue of their own), and not at all when it
// does not: Recognize never accepts what the prefilter rejects.
func TestVariationsBare(t *testing.T) {
	for _, bs := range bases {
		r, ok := Recognize(bs.msg)
		if ok != MayContain(bs.msg) {
			t.Errorf("%s: bare message recognised = %v, MayContain = %v", bs.id, ok, !ok)
		}
		if !ok {
			continue
		}
		t.Run(bs.id, func(t *testing.T) { checkReport(t, r, bs.want) })
	}
}

// classBase is one new family's message, as the C++ code formats it, with
// what every variation must read (and the family's refinedCategory).
type classBase struct {
	id, msg string
	tpu     bool
	want    want
}

var classBases = []classBase{
	{id: "no sizes", tpu: true,
		msg:  "Ran out of memory in memory space vmem. It should not be possible to run out of vmem - please file a bug against XLA.",
		want: want{code: "E1001", family: famNoSizes, backend: "tpu", space: "vmem"}},
	{id: "program load fatal", tpu: true,
		msg:  "Error loading program: Fatal error",
		want: want{code: "E0101", family: famProgramFatal, backend: "tpu"}},
	{id: "program load cut", tpu: true,
		msg:  "Error loading program 'jit_step': Attempting to reserve 29.49G at the bottom of memory. That was not possible.",
		want: want{code: "E0101", family: famProgramLoad, backend: "tpu", program: "jit_step", requested: b(31664646390)}},
	{id: "kernel launch",
		msg:  "Failed to launch CUDA kernel: fusion_12 with block dimensions: 128x1x1 and grid dimensions: 2048x1x1: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
		want: want{code: "E0007", family: famKernelLaunch, backend: "gpu", instr: "fusion_12"}},
	{id: "module load",
		msg:  "[0] Failed to load in-memory CUBIN (compiled for a different GPU?).: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
		want: want{code: "E0007", family: famModuleLoad, backend: "gpu", device: "0"}},
	{id: "context init",
		msg:  "failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 34089730048",
		want: want{code: "E0007", family: famContextInit, backend: "gpu", capacity: b(34089730048)}},
	{id: "unified memory",
		msg:  "[0] Failed to allocate 2.00GiB (2147483648 bytes) of unified memory: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
		want: want{code: "E0007", family: famUnified, backend: "gpu", device: "0", requested: b(2147483648)}},
	{id: "constant",
		msg:  "Failed to allocate 1048576 bytes for new constant",
		want: want{code: "E0007", family: famConstant, backend: "gpu", requested: b(1048576)}},
	{id: "tf tensor",
		msg:  "OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
		want: want{code: "E0007", family: famTFTensor, backend: "gpu", device: "0", requested: b(16777216)}},
	{id: "tf failed to allocate",
		msg:  "failed to allocate memory [Op:AddV2]",
		want: want{code: "E0007", family: famTFAllocFailed, instr: "AddV2"}},
}

// Every new family behind every wrapper, status spelling and log header the
// existing families are tested with.
func TestRecognitionClassVariations(t *testing.T) {
	for _, bs := range classBases {
		forEachWrapping(bs.msg, bs.tpu, func(label, text, rp string) {
			t.Run(bs.id+"/"+label, func(t *testing.T) {
				if !MayContain(text) {
					t.Fatalf("MayContain = false for %q", text)
				}
				r, ok := Recognize(text)
				if !ok {
					t.Fatalf("not recognised: %q", text)
				}
				w := bs.want
				w.rp, w.category = rp, refinedCategory[w.family]
				checkReport(t, r, w)
			})
		})
	}
}
