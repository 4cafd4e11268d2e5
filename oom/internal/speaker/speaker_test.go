// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Real statements, their header cut off as the recogniser cuts it: from the
// GPU job captures (oom/testdata/jobs), the message fixtures
// (oom/testdata/messages) and the foreign messages
// (oom/testdata/foreign/oom_messages.txt, each with its source there).
var cases = []struct {
	name, header, statement string
	want                    Speaker
}{
	// XLA's stack.
	{"jax exception (jobs/platform_near_full_oom.log)", "",
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB with allocator SE_0_space_0 on device 0.",
		Speaker{Form: Exception, Module: "jax.errors", Class: "JaxRuntimeError", Program: "jax", Owner: XLA}},
	{"jaxlib exception", "",
		"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Shared memory size limit exceeded: requested 262144, available: 232448",
		Speaker{Form: Exception, Module: "jaxlib.xla_extension", Class: "XlaRuntimeError", Program: "jax", Owner: XLA}},
	{"unqualified XlaRuntimeError (Jupyter)", "",
		"XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M.",
		Speaker{Form: Exception, Class: "XlaRuntimeError", Program: "xla", Owner: XLA}},
	{"TensorFlow exception", "",
		"tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[256,1024,1024] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
		Speaker{Form: Exception, Module: "tensorflow.python.framework.errors_impl", Class: "ResourceExhaustedError", Program: "tensorflow", Owner: XLA}},
	{"exception logged by vLLM", "(EngineCore_DP0 pid=896988) ERROR 09-19 10:23:41 [core.py:700] ",
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer",
		Speaker{Form: Exception, Module: "jax.errors", Class: "JaxRuntimeError", Level: 'E', Program: "jax", Owner: XLA}},
	{"glog line, basename (jobs/platform_near_full_oom.log)", "E1126 11:17:52.375118    2444 cuda_executor.cc:1365] ",
		"[0] Failed to allocate device memory of 11.18GiB (12000000000 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory",
		Speaker{Form: Native, File: "cuda_executor.cc", Level: 'E'}},
	{"TSL line, XLA path", "2024-05-28 07:02:44.349554: W ",
		"", Speaker{}},
	{"TSL header with an XLA path", "2024-05-28 07:02:44.349554: W external/tsl/tsl/framework/bfc_allocator.cc:482] ",
		"Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.50GiB",
		Speaker{Form: Native, File: "external/tsl/tsl/framework/bfc_allocator.cc", Level: 'W', Program: "xla", Owner: XLA}},
	{"bzlmod path", "E1126 11:16:43.148 2444 external/xla+/xla/stream_executor/cuda/cuda_executor.cc:1365] ",
		"[0] Failed to allocate device memory", Speaker{Form: Native, File: "external/xla+/xla/stream_executor/cuda/cuda_executor.cc", Level: 'E', Program: "xla", Owner: XLA}},
	{"JAX logger", "WARNING:jax._src.xla_bridge:",
		"CUDA backend failed to initialize: INTERNAL: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
		Speaker{Form: Logger, Logger: "jax._src.xla_bridge", Level: 'W', Program: "jax", Owner: XLA}},
	{"PyTorch/XLA's RuntimeError", "", "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00G.",
		Speaker{Form: Exception, Class: "RuntimeError", Program: "torch_xla", Owner: XLA}},
	{"PyTorch/XLA exception", "", "torch_xla.runtime.RuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer",
		Speaker{Form: Exception, Module: "torch_xla.runtime", Class: "RuntimeError", Program: "torch_xla", Owner: XLA}},

	// Foreign programs (oom/testdata/foreign/oom_messages.txt).
	{"CuPy", "", "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 200,000,000,000 bytes (allocated so far: 0 bytes).",
		Speaker{Form: Exception, Module: "cupy.cuda.memory", Class: "OutOfMemoryError", Program: "cupy", Owner: Foreign}},
	{"PyTorch", "", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
		Speaker{Form: Exception, Module: "torch", Class: "OutOfMemoryError", Program: "pytorch", Owner: Foreign}},
	{"PyTorch logged by vLLM", "ERROR 05-28 07:03:09 [worker.py:88] ", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
		Speaker{Form: Exception, Module: "torch", Class: "OutOfMemoryError", Level: 'E', Program: "pytorch", Owner: Foreign}},
	{"Numba's logger", "ERROR:numba.cuda.cudadrv.driver:", "Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY",
		Speaker{Form: Logger, Logger: "numba.cuda.cudadrv.driver", Level: 'E', Program: "numba", Owner: Foreign}},
	{"Numba's own handler", "", "== CUDA [1532] ERROR -- Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY",
		Speaker{Form: Native, Program: "numba", Owner: Foreign}},
	{"PaddlePaddle summary: the class names no program, the source path does", "",
		"ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 3.000000GB memory on GPU 0, 14.756287GB memory has been allocated and available memory is only 1.014648GB. (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:86)",
		Speaker{Form: Exception, Class: "ResourceExhaustedError", File: "/paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:86", Program: "paddlepaddle", Owner: Foreign}},
	{"PaddlePaddle summary, its first line alone", "", "ResourceExhaustedError: ",
		Speaker{Form: Exception, Class: "ResourceExhaustedError"}},
	{"RMM through cuDF", "",
		"MemoryError: std::bad_alloc: out_of_memory: CUDA error (failed to allocate 8589934592 bytes) at: /opt/conda/include/rmm/mr/cuda_memory_resource.hpp:62: cudaErrorMemoryAllocation out of memory",
		Speaker{Form: Exception, Class: "MemoryError", File: "/opt/conda/include/rmm/mr/cuda_memory_resource.hpp:62:", Program: "rapids", Owner: Foreign}},
	{"RMM uncaught in C++", "", "terminate called after throwing an instance of 'rmm::out_of_memory'",
		Speaker{Form: Exception, Module: "rmm", Class: "out_of_memory", Program: "rapids", Owner: Foreign, cpp: true}},
	{"ONNX Runtime's log line", "",
		"2024-01-15 10:00:00.123456789 [E:onnxruntime:, sequential_executor.cc:514 ExecuteKernel] Non-zero status code returned while running Conv node.",
		Speaker{Form: Native, Program: "onnxruntime", Owner: Foreign}},
	{"NCCL", "", "gpu-node-1:4242:4300 [0] include/alloc.h:493 NCCL WARN Failed to CUDA calloc 1073741824 bytes",
		Speaker{Form: Native, Program: "nccl", Owner: Foreign}},
	{"TensorRT", "", "[TRT] [E] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime (out of memory)",
		Speaker{Form: Native, File: "defaultAllocator.cpp", Program: "tensorrt", Owner: Foreign}},
	{"ggml", "", "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory",
		Speaker{Form: Native, Program: "llama.cpp", Owner: Foreign}},
	{"ggml's function without the ggml_ prefix", "", "alloc_tensor_range: failed to allocate CUDA0 buffer of size 8589934592",
		Speaker{Form: Native, Program: "llama.cpp", Owner: Foreign}},
	{"Numba's logger behind an application's tag", "", "[trainer] ERROR:numba.cuda.cudadrv.driver:Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY",
		Speaker{Form: Logger, Logger: "numba.cuda.cudadrv.driver", Level: 'E', Program: "numba", Owner: Foreign}},
	{"CuPy behind a JSON field", "", `{"log":"cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,024 bytes (allocated so far: 0 bytes).\n"}`,
		Speaker{Form: Exception, Module: "cupy.cuda.memory", Class: "OutOfMemoryError", Program: "cupy", Owner: Foreign}},
	{"JVM", "", `Exception in thread "main" java.lang.OutOfMemoryError: Java heap space`,
		Speaker{Form: Exception, Module: "java.lang", Class: "OutOfMemoryError", Program: "jvm", Owner: Foreign}},
	{"Triton (not Pallas)", "", "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376.",
		Speaker{Form: Exception, Module: "triton.runtime.errors", Class: "OutOfResources", Program: "triton", Owner: Foreign}},
	{"PostgreSQL's client", "", "psycopg2.errors.OutOfMemory: out of memory",
		Speaker{Form: Exception, Module: "psycopg2.errors", Class: "OutOfMemory", Program: "postgresql", Owner: Foreign}},

	{"Chainer's trainer printing CuPy's error (chainer/training/trainer.py)", "",
		"Exception in main training loop: Out of memory allocating 25,600,000 bytes (allocated so far: 3,635,267,072 bytes).",
		Speaker{Form: Native, Program: "chainer", Owner: Foreign}},
	{"CuPy's error as str(e) prints it", "", "Out of memory allocating 1,073,741,824 bytes (allocated so far: 0 bytes, limit set to: 4,294,967,296 bytes).",
		Speaker{Form: Native, Program: "cupy", Owner: Foreign}},
	{"Chainer's exception", "", "chainer.utils.type_check.InvalidType: Invalid operation is performed",
		Speaker{Form: Exception, Module: "chainer.utils.type_check", Class: "InvalidType", Program: "chainer", Owner: Foreign}},
	{"XLA:CPU's host OOM has no such tail", "", "Out of memory allocating 41246000000 bytes.", Speaker{}},
	{"CuPy's exception in a message logged by the root logger", "ERROR:root:",
		"Batch failed: cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes (allocated so far: 0 bytes).",
		Speaker{Form: Logger, Logger: "root", Level: 'E', Module: "cupy.cuda.memory", Class: "OutOfMemoryError", Program: "cupy", Owner: Foreign}},
	{"JAX's exception in a bare message: XLA's, not raised", "",
		"step 12 failed: jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB",
		Speaker{Module: "jax.errors", Class: "JaxRuntimeError", Program: "jax", Owner: XLA}},

	{"a JSON enclosure (a container runtime's log file)", "",
		`{"log":"jax.errors.JaxRuntimeError: INTERNAL: gpu_async_0 cuMemAllocAsync failed to allocate 4294967296 bytes","stream":"stderr"}`,
		Speaker{Form: Exception, Module: "jax.errors", Class: "JaxRuntimeError", Program: "jax", Owner: XLA}},

	// Bare and unknown: today's rules.
	{"bare status (jobs/two_jobs_second.log)", "", "RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory", Speaker{}},
	{"BFC statistics line", "", "Limit:                 11281553818", Speaker{}},
	{"builtin class with no path", "", "RuntimeError: CUDA error: out of memory", Speaker{Form: Exception, Class: "RuntimeError"}},
	{"absl logger", "ERROR:absl:", "Failed to allocate", Speaker{Form: Logger, Logger: "absl", Level: 'E'}},
	{"Python logging, root", "2024-03-02 11:45:09,412 - root - ERROR - ", "step failed", Speaker{Form: Logger, Logger: "root", Level: 'E'}},
	{"a sentence with a colon", "", "e.g. this: that", Speaker{}},
	{"a C function that is no known program's", "", "compute_buffer: failed to allocate", Speaker{}},
}

func TestOf(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Of(c.header, c.statement); got != c.want {
				t.Errorf("Of(%q, %q)\n got %+v\nwant %+v", c.header, c.statement, got, c.want)
			}
		})
	}
}

func TestRaisedAndType(t *testing.T) {
	for _, c := range []struct {
		statement, typ string
		raised         bool
	}{
		{"jax.errors.JaxRuntimeError: INTERNAL: gpu_async_0 cuMemAllocAsync failed to allocate 4294967296 bytes", "jax.errors.JaxRuntimeError", true},
		{"tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor", "tensorflow.python.framework.errors_impl.ResourceExhaustedError", true},
		{"ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer", "ValueError", false},
		{"cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,024 bytes", "cupy.cuda.memory.OutOfMemoryError", false},
		{"terminate called after throwing an instance of 'rmm::out_of_memory'", "rmm::out_of_memory", false},
		{"RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.00GiB", "", false},
	} {
		s := Of("", c.statement)
		if s.Type() != c.typ || s.Raised() != c.raised {
			t.Errorf("%q: Type %q Raised %v, want %q %v", c.statement, s.Type(), s.Raised(), c.typ, c.raised)
		}
	}
}

func TestStartsStatement(t *testing.T) {
	for line, want := range map[string]bool{
		"Traceback (most recent call last):":                                     true,
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory":          true,
		"ResourceExhaustedError: ":                                               true,
		"terminate called after throwing an instance of 'std::bad_alloc'":        true,
		`Exception in thread "main" java.lang.OutOfMemoryError: Java heap space`: true,
		" Reported by CUDA: Free memory/Total memory: 1048576/85899345920":       false,
		"=== Source Location Trace: ===":                                         false,
		"external/xla+/xla/stream_executor/cuda/cuda_status.cc:45":               false,
		"Stats: ": false,
		"Exception in main training loop: Out of memory allocating 25,600,000 bytes":                 true,
		"Out of memory allocating 25,600,000 bytes (allocated so far: 0 bytes).":                     false,
		"INTERNAL: Failed to allocate":                                                               false,
		`  File "/opt/venv/lib/python3.12/site-packages/cupy/_creation/basic.py", line 31, in empty`: false,
	} {
		if got := StartsStatement(line); got != want {
			t.Errorf("StartsStatement(%q) = %v", line, got)
		}
	}
}

// TestForeignFileSpeakers reads every block of the foreign messages: the
// statement that holds its out-of-memory words is never XLA's and never
// raised by it.
func TestForeignFileSpeakers(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "foreign", "oom_messages.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, block := range strings.Split(string(data), "\n### ")[1:] {
		src, text, _ := strings.Cut(block, "\n")
		for line := range strings.Lines(text) {
			if s := Of("", line); s.Owner == XLA || s.Raised() {
				t.Errorf("%s: %q read as XLA's: %+v", src, line, s)
			}
		}
		n++
	}
	if n < 30 {
		t.Errorf("%d blocks, want the whole file", n)
	}
}
