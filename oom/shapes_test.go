// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"testing"
)

// Real messages in the shapes they reach a log pipeline, by recognition
// class: size-less compile-time OOMs, messages cut short, driver-level device
// OOMs, TensorFlow allocator OOMs, hard-wrapped pastes and the sizes the
// attribute contract promises. Every row is a real message, or real pieces
// joined where the sources elide them ("composed"): behind exception
// wrappers and status spellings, log headers, comment, pdb and quote
// markers, and cut at the points log shippers and people cut it.
// (variations_test.go builds the same shapes around one message of each
// family; truncation_test.go cuts messages at every point.)

// classRow is one fixture of a recognition class.
type classRow struct {
	class      int // the class number, 1-6
	name, src  string
	text, file string
	want       want
	// notPrefiltered marks a form MayContain does not pass (see the
	// family's cues); Recognize, which follows the prefilter, does not read it.
	notPrefiltered bool
}

func (c classRow) body(t testing.TB) string {
	return fixture{name: c.name, text: c.text, file: c.file}.body(t)
}

var classRows = []classRow{
	// ---- 1: compile-time OOM without sizes, in any memory space
	{class: 1, name: "no sizes/vmem please file a bug", src: "jax-ml/jax issue threads (Pallas TPU kernels); composed wrapper",
		text: `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. It should not be possible to run out of vmem - please file a bug against XLA.`,
		want: want{code: "E1001", family: famNoSizes, backend: "tpu", space: "vmem", advice: []string{"block sizes", "compiler bug"}}},
	{class: 1, name: "no sizes/hbm bare", src: "composed: E1000 headline without its Used clause",
		text: `RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.`,
		want: want{code: "E1000", family: famNoSizes, backend: "tpu", space: "hbm", advice: []string{"donate_argnums", "XProf"}}},
	{class: 1, name: "no sizes/smem Python comment", src: "composed: error quoted as a # comment in a notebook",
		text: `# jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space smem. Please file a bug against XLA.`,
		want: want{code: "E1001", family: famNoSizes, backend: "tpu", space: "smem", advice: []string{"SMEM holds scalars"}}},
	{class: 1, name: "no sizes/pdb marker", src: "composed: pdb prints the exception after ***",
		text: `*** jaxlib._jax.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem.`,
		want: want{code: "E1001", family: famNoSizes, backend: "tpu", space: "vmem"}},
	{class: 1, name: "no sizes/quoted reply over two lines", src: "composed: an issue reply quoting the traceback with > markers", file: "tpu-compile-out-of-memory-no-sizes_quoted_reply.txt",
		want: want{code: "E1001", family: famNoSizes, backend: "tpu", space: "vmem", advice: []string{"vmem_limit_bytes"}}},
	{class: 1, name: "no sizes/TF root error index", src: "composed: TF TPUEstimator root-error list around the headline", file: "tpu-compile-out-of-memory-no-sizes_root_errors.txt",
		want: want{code: "E1000", family: famNoSizes, backend: "tpu", space: "hbm"}},
	{class: 1, name: "no sizes/factory code", src: "composed: E1001 factory form",
		text: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1001: CompileTimeScopedVmemOom:\nRan out of memory in memory space vmem.\nSee https://openxla.org/xla/errors/error_1001 for more details.",
		want: want{code: "E1001", family: famNoSizes, backend: "tpu", space: "vmem"}},
	{class: 1, name: "no sizes/glog header and replica", src: "composed: pjrt Execution of replica log line",
		text: `E0528 07:02:44.350251   27487 pjrt_stream_executor_client.cc:2826] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem.`,
		want: want{code: "E1001", family: famNoSizes, backend: "tpu", space: "vmem", rp: "r0"}},
	{class: 1, name: "no sizes/cut after the space name", src: "composed: the headline cut at the end of the line",
		text: `RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space vmem`,
		want: want{code: "E1001", family: famNoSizes, backend: "tpu", space: "vmem"}},

	// ---- 2: messages cut short
	{class: 2, name: "cut/program load ends at That was not possible", src: "composed: E0101 headline cut after its first clause",
		text: `XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_train_step': Attempting to reserve 29.49G at the bottom of memory. That was not possible.`,
		want: want{code: "E0101", family: famProgramLoad, backend: "tpu", program: "jit_train_step", requested: b(31664646390),
			advice: []string{"tpu_shared_memory_percent"}}},
	{class: 2, name: "cut/program load inside reserved", src: "composed: E0101 headline cut by a 16 KiB line limit",
		text: `XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B res`,
		want: want{code: "E0101", family: famProgramLoad, backend: "tpu", program: "jit_step", requested: b(31664646390), free: b(154811761), cause: "exhaustion",
			advice: []string{"29.49 GiB"}}},
	{class: 2, name: "cut/program load inside the size", src: "composed: E0101 headline cut inside its first size",
		text: `RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 29.4`,
		want: want{code: "E0101", family: famProgramLoad, backend: "tpu", program: "jit_step"}},
	{class: 2, name: "cut/buffer without its free part", src: "composed: E0100 headline cut before There are",
		text: `ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible.`,
		want: want{code: "E0100", family: famBuffer, backend: "tpu", requested: b(8388608), advice: []string{"tpu_log_allocations_on_oom"}}},
	{class: 2, name: "cut/buffer after the request", src: "composed: E0100 headline cut after its first sentence",
		text: `RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 196.00M.`,
		want: want{code: "E0100", family: famBuffer, backend: "tpu", requested: b(205520896)}},
	{class: 2, name: "cut/program load fatal error", src: "PyTorch/XLA TPU issue threads (XRT runtime)",
		text: `RuntimeError: RESOURCE_EXHAUSTED: Error loading program: Fatal error`,
		want: want{code: "E0101", family: famProgramFatal, backend: "tpu", advice: []string{"tpu_shared_memory_percent"}}},
	{class: 2, name: "cut/program load fatal error named", src: "composed: program name as jax prints it",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step': Fatal error`,
		want: want{code: "E0101", family: famProgramFatal, backend: "tpu", program: "jit_step"}},
	{class: 2, name: "cut/GPU mid-word", src: "composed: the OpenXLA OOM debugging guide's GPU message, cut mid-word",
		text: `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2147483648 byt`,
		want: want{code: "E0007", family: famGPUAllocator, requested: b(2147483648)}},
	{class: 2, name: "cut/GPU inside the number", src: "composed: GPU message cut inside the byte count",
		text: `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 21474`,
		want: want{code: "E0007", family: famGPUAllocator}},
	{class: 2, name: "cut/platform allocator before exact bytes", src: "composed: J headline cut inside (NB)",
		text: `RuntimeError: Resource exhausted: Failed to allocate request for 154.06GiB (1654252`,
		want: want{code: "E0007", family: famPlatformAllocator, backend: "gpu", requested: b(165420665405)}},

	// ---- 3: driver-level device OOMs under any status
	{class: 3, name: "driver/kernel launch, old INTERNAL form", src: "xla/stream_executor/cuda/cuda_driver.cc (2022) LaunchKernel; composed wrapper",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch CUDA kernel: fusion_12 with block dimensions: 128x1x1 and grid dimensions: 2048x1x1: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famKernelLaunch, backend: "gpu", instr: "fusion_12", advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION", "nvidia-smi"}}},
	{class: 3, name: "driver/kernel launch, dims form", src: "xla/stream_executor/cuda/cuda_stream.cc (2024+) LaunchCudaKernel",
		text: `RESOURCE_EXHAUSTED: Failed to launch CUDA kernel: loop_add_fusion; block dims: 128x1x1; grid dims: 4096x1x1; shared memory size: 0: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famKernelLaunch, backend: "gpu", instr: "loop_add_fusion"}},
	{class: 3, name: "driver/kernel launch, cluster dims, UNKNOWN", src: "xla/stream_executor/cuda/cuda_stream.cc (2024+), cluster launch",
		text: `jax.errors.JaxRuntimeError: UNKNOWN: Failed to launch CUDA kernel: triton_gemm_dot; cluster dims: 2x1x1; block dims: 384x1x1; grid dims: 132x1x1; shared memory size: 232448: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famKernelLaunch, backend: "gpu", instr: "triton_gemm_dot"}},
	{class: 3, name: "driver/kernel launch, no status, log line", src: "composed: the status logged by the executable",
		text: `E0312 11:02:44.350251   27487 pjrt_stream_executor_client.cc:2826] Execution of replica 0 failed: Failed to launch CUDA kernel: fusion_3 with block dimensions: 256x1x1 and grid dimensions: 80x1x1: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famKernelLaunch, backend: "gpu", instr: "fusion_3", rp: "r0"}},
	{class: 3, name: "driver/ROCm kernel launch", src: "xla/stream_executor/rocm/rocm_driver.cc (2024) LaunchKernel",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch ROCm kernel: fusion_3 with block dimensions: 256x1x1: HIP_ERROR_OutOfMemory`,
		want: want{code: "E0007", family: famKernelLaunch, backend: "gpu", instr: "fusion_3"}},
	{class: 3, name: "driver/ROCm kernel launch hipError_t(1002)", src: "xla/stream_executor/rocm/rocm_driver.cc ToString default (hipError_t(N))",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch ROCm kernel: input_reduce_fusion with block dimensions: 1024x1x1: hipError_t(1002)`,
		want: want{code: "E0007", family: famKernelLaunch, backend: "gpu", instr: "input_reduce_fusion"}},
	{class: 3, name: "driver/CUBIN load, old", src: "xla/stream_executor/cuda/cuda_driver.cc (2022) LoadCubin",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to load in-memory CUBIN: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famModuleLoad, backend: "gpu", advice: []string{"XLA_PYTHON_CLIENT_PREALLOCATE=false"}}},
	{class: 3, name: "driver/CUBIN load with device", src: "xla/stream_executor/cuda/cuda_executor.cc (2025+) LoadCubin with XlaFormatDevice",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: [0] Failed to load in-memory CUBIN (compiled for a different GPU?).: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famModuleLoad, backend: "gpu", device: "0"}},
	{class: 3, name: "driver/PTX load", src: "xla/stream_executor/cuda/cuda_driver.cc (2022-2024) LoadPtx",
		text: `INTERNAL: Failed to load PTX text as a module: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famModuleLoad, backend: "gpu"}},
	{class: 3, name: "driver/HSACO load", src: "xla/stream_executor/rocm/rocm_driver.cc (2024) LoadHsaco",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to load HSACO: HIP_ERROR_OutOfMemory`,
		want: want{code: "E0007", family: famModuleLoad, backend: "gpu"}},
	{class: 3, name: "driver/context retain, status", src: "https://github.com/jax-ml/jax/issues/10830; xla/stream_executor/cuda/cuda_driver.cc CreateContext",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 34089730048`,
		want: want{code: "E0007", family: famContextInit, backend: "gpu", capacity: b(34089730048), advice: []string{"another process", "XLA_PYTHON_CLIENT_PREALLOCATE=false"}}},
	{class: 3, name: "driver/context retain, log line", src: "https://github.com/jax-ml/jax/issues/10830",
		text: `E0413 10:22:33.123456 1234 cuda_driver.cc:268] failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 34089730048`,
		want: want{code: "E0007", family: famContextInit, backend: "gpu", capacity: b(34089730048)}},
	{class: 3, name: "driver/context retain, backend init raised", src: "jax/_src/xla_bridge.py (Unable to initialize backend) around the CreateContext status",
		text: `RuntimeError: Unable to initialize backend 'cuda': INTERNAL: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 25386352640 (set JAX_PLATFORMS='' to automatically choose an available backend)`,
		want: want{code: "E0007", family: famContextInit, backend: "gpu", capacity: b(25386352640), advice: []string{"nvidia-smi", "one process per GPU"}}},
	{class: 3, name: "driver/ROCm context retain", src: "xla/stream_executor/rocm/rocm_driver.cc (2024) CreateContext",
		text: `INTERNAL: failed call to hipDevicePrimaryCtxRetain: HIP_ERROR_OutOfMemory; total memory reported: 68702699520`,
		want: want{code: "E0007", family: famContextInit, backend: "gpu", capacity: b(68702699520)}},
	{class: 3, name: "driver/unified memory log line", src: "xla/stream_executor/cuda/cuda_driver.cc (2024) UnifiedMemoryAllocate",
		text: `E0101 09:00:00.000000 4242 cuda_driver.cc:1231] failed to alloc 2147483648 bytes unified memory; result: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famUnifiedLog, backend: "gpu", requested: b(2147483648), advice: []string{"unified"}}},
	{class: 3, name: "driver/unified memory status", src: "xla/stream_executor/cuda/cuda_unified_allocator.cc (2025+)",
		text: `INTERNAL: [0] Failed to allocate 2.00GiB (2147483648 bytes) of unified memory: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famUnified, backend: "gpu", device: "0", requested: b(2147483648)}},
	{class: 3, name: "driver/pinned host memory status", src: "xla/stream_executor/cuda/cuda_host_allocator.cc (2025+)",
		text: `jax.errors.JaxRuntimeError: INTERNAL: [1] Failed to allocate 512.00MiB (536870912 bytes) of pinned host memory: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: famUnified, backend: "gpu", space: "host", device: "1", requested: b(536870912), advice: []string{"pinned host memory"}}},
	{class: 3, name: "driver/ROCm unified memory", src: "xla/stream_executor/rocm/rocm_driver.cc (2024) UnifiedMemoryAllocate",
		text: `E external/xla/xla/stream_executor/rocm/rocm_driver.cc:1113] failed to alloc 1073741824 bytes unified memory; result: HIP_ERROR_OutOfMemory`,
		want: want{code: "E0007", family: famUnifiedLog, backend: "gpu", requested: b(1073741824)}},
	{class: 3, name: "driver/new constant", src: "xla/stream_executor/cuda/cuda_executor.cc CreateOrShareConstant",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to allocate 1048576 bytes for new constant`,
		want: want{code: "E0007", family: famConstant, backend: "gpu", requested: b(1048576), advice: []string{"constant"}}},
	{class: 3, name: "driver/new constant, log line without an exception", src: "composed: rocm_executor.cc CreateOrShareConstant under a glog header",
		text: `E0907 12:00:00.000000 77 pjrt_stream_executor_client.cc:2826] Execution of replica 0 failed: INTERNAL: Failed to allocate 402653184 bytes for new constant`,
		want: want{code: "E0007", family: famConstant, backend: "gpu", requested: b(402653184), rp: "r0"}},

	// ---- 4: TensorFlow allocator OOMs
	{class: 4, name: "tf/eager Conv2D", src: "https://github.com/hotosm/fAIr/issues/59 (shape, type, device); eager [Op:] suffix",
		text: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:Conv2D]`,
		want: want{code: "E0007", family: famTFTensor, backend: "gpu", device: "0", instr: "Conv2D", requested: b(16777216),
			advice: []string{"report_tensor_allocations_upon_oom", "set_memory_growth"}}},
	{class: 4, name: "tf/OP_REQUIRES CPU", src: "tensorflow/core/framework/op_kernel.cc OP_REQUIRES log line (TF issue threads)",
		text: `W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at cast_op.cc:109 : Resource exhausted: OOM when allocating tensor with shape[1024,1024,64] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu`,
		want: want{code: "E0007", family: famTFTensor, backend: "cpu", space: "host", requested: b(268435456), advice: []string{"report_tensor_allocations_upon_oom"}}},
	{class: 4, name: "tf/function_node MatMul", src: "composed: TF 2.12+ eager error with function_node and name suffix",
		text: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node __wrapped__MatMul_device_/job:localhost/replica:0/task:0/device:GPU:0}} OOM when allocating tensor with shape[50000,50000] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:MatMul] name: `,
		want: want{code: "E0007", family: famTFTensor, backend: "gpu", device: "0", instr: "MatMul", requested: b(10000000000)}},
	{class: 4, name: "tf/half on GPU 1", src: "composed: op_kernel.cc template, half dtype",
		text: `2023-11-07 19:31:02.771300: W tensorflow/core/framework/op_kernel.cc:1828] OP_REQUIRES failed at conv_ops_impl.h:1199 : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[8,2048,2048] and type half on /job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc`,
		want: want{code: "E0007", family: famTFTensor, backend: "gpu", device: "1", requested: b(67108864)}},
	{class: 4, name: "tf/BFC warning then op failure", src: "composed: bfc_allocator.cc warning + op_kernel.cc failure (was the TF-native negative)",
		text: "2023-11-07 19:31:02.771234: W tensorflow/tsl/framework/bfc_allocator.cc:485] Allocator (GPU_0_bfc) ran out of memory trying to allocate 64.00MiB (rounded to 67108864)requested by op model/conv2d_3/Conv2D\n" +
			"2023-11-07 19:31:02.771300: W tensorflow/core/framework/op_kernel.cc:1828] OP_REQUIRES failed at conv_ops_impl.h:1199 : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
		want: want{code: "E0007", family: famTFTensor, backend: "gpu", device: "0", requested: b(16777216)}},
	{class: 4, name: "tf/root errors on TPU, bfloat16", src: "composed: TF 1.x TPUEstimator root-error list", file: "tensorflow-op-tensor-allocation_root_errors_tpu.txt",
		want: want{code: "E0007", family: famTFTensor, backend: "tpu", device: "TPU:0", instr: "transformer/attention/MatMul", requested: b(16777216),
			advice: []string{"report_tensor_allocations_upon_oom"}}},
	{class: 4, name: "tf/old tensor of shape wording", src: "TF 0.x executor.cc (tensor of shape [..])",
		text: `E tensorflow/core/common_runtime/executor.cc:334] Executor failed to create kernel. Resource exhausted: OOM when allocating tensor of shape [4096,4096] and type float`,
		want: want{code: "E0007", family: famTFTensor, requested: b(67108864)}},
	{class: 4, name: "tf/Compute status, no type", src: "TF 0.x executor.cc Compute status line",
		text: "W tensorflow/core/common_runtime/executor.cc:1027] 0x7f3c2c0158b0 Compute status: Resource exhausted: OOM when allocating tensor with shape[256,128,28,28]\n\t [[Node: conv2/Conv2D = Conv2D[T=DT_FLOAT, padding=\"SAME\", strides=[1, 1, 1, 1], use_cudnn_on_gpu=true, _device=\"/job:localhost/replica:0/task:0/gpu:0\"](pool1, conv2/weights)]]",
		want: want{code: "E0007", family: famTFTensor}},
	{class: 4, name: "tf/graph execution error, truncated node", src: "https://github.com/hotosm/fAIr/issues/59", file: "tensorflow-op-tensor-allocation_graph_execution_truncated.txt",
		want: want{code: "E0007", family: famTFTensor, backend: "gpu", device: "0", requested: b(16777216)}},
	{class: 4, name: "tf/graph execution error with node", src: "https://github.com/hotosm/fAIr/issues/59 (was the TF-native negative file)", file: "tensorflow-op-tensor-allocation_graph_execution_node.txt",
		want: want{code: "E0007", family: famTFTensor, backend: "gpu", device: "0", instr: "model/conv2d_3/Conv2D", requested: b(16777216),
			advice: []string{"report_tensor_allocations_upon_oom"}}},
	{class: 4, name: "tf/failed to allocate memory, function_node", src: "composed: TF 2.12+ eager error with a function_node tag",
		text: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node __wrapped__Mul_device_/job:localhost/replica:0/task:0/device:GPU:0}} failed to allocate memory [Op:Mul] name: `,
		want: want{code: "E0007", family: famTFAllocFailed, backend: "gpu", instr: "Mul"}},
	{class: 4, name: "tf/truncated inside the device", src: "composed: eager error cut by a log shipper",
		text: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/devi`,
		want: want{code: "E0007", family: famTFTensor, requested: b(16777216)}},
	{class: 4, name: "tf/truncated inside the shape", src: "composed: issue title cut inside the shape",
		text: `ResourceExhaustedError: OOM when allocating tensor with shape[16,64,6`,
		want: want{code: "E0007", family: famTFTensor}},
	{class: 4, name: "tf/unknown dtype leaves the size unset", src: "composed: op_kernel.cc template, string tensor",
		text: `Resource exhausted: OOM when allocating tensor with shape[1000000] and type string on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu`,
		want: want{code: "E0007", family: famTFTensor, backend: "cpu", space: "host"}},
	{class: 4, name: "tf/failed to allocate memory, node next line", src: "TF GPU op failure with its node (issue threads)", file: "tensorflow-op-allocation-failed_node_next_line.txt",
		want: want{code: "E0007", family: famTFAllocFailed, instr: "model/lstm/while/body/_1/MatMul", advice: []string{"report_tensor_allocations_upon_oom"}}},
	{class: 4, name: "tf/failed to allocate memory eager", src: "composed: eager [Op:] suffix",
		text: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: failed to allocate memory [Op:AddV2]`,
		want: want{code: "E0007", family: famTFAllocFailed, instr: "AddV2"}},

	// ---- 5: hard-wrapped pastes
	{class: 5, name: "wrap/GPU status split inside allocate", src: "composed: jax#788 status wrapped by a pager", file: "gpu-allocator-status_wrapped_in_allocate.txt",
		want: want{code: "E0007", family: famGPUAllocator, requested: b(5520758552), rp: "r0"}},
	{class: 5, name: "wrap/TPU buffer split inside a number", src: "composed: pytorch/xla#8020 message wrapped at 111 columns", file: "tpu-runtime-buffer_wrapped_in_number.txt",
		want: want{code: "E0100", family: famBuffer, backend: "tpu", space: "hbm", device: "1x0x0_HBM0", requested: b(205520896), free: b(140970557), cause: "exhaustion", rp: "r0p0"}},
	{class: 5, name: "wrap/TF shape split inside a dimension", src: "composed: TF eager error wrapped at 106 columns", file: "tensorflow-op-tensor-allocation_wrapped_in_shape.txt",
		want: want{code: "E0007", family: famTFTensor, backend: "gpu", device: "0", instr: "MatMul", requested: b(10000000000)}},
	{class: 5, name: "wrap/container runtime partial line", src: "composed: CRI log with a 16 KiB partial (P) line", file: "tpu-runtime-buffer_cri_partial_line.txt",
		want: want{code: "E0100", family: famBuffer, backend: "tpu", space: "hbm", device: "0x0x1_HBM0", requested: b(8388608), free: b(6742344), cause: "exhaustion"}},

	// ---- 6: sizes the contract promises
	{class: 6, name: "sizes/early abort has X available sets free", src: "OpenXLA error page E1000 (early abort)",
		text: `RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely to have enough memory. Requires 3.84T, has 90.96G available.`,
		want: want{code: "E1000", family: famEarlyAbort, backend: "tpu", requested: b(4222124650660), free: b(97667556311), capacity: b(97667556311), cause: "exhaustion"}},
	{class: 6, name: "sizes/cudaMallocAsync InUse sets used", src: "https://github.com/NovaSky-AI/SkyRL/issues/624", file: "gpu-cuda-async-allocator_skyrl624.txt",
		want: want{code: "E0007", family: famAsyncAllocator, backend: "gpu", device: "1", requested: b(1225195446464), free: b(22635544576), used: b(59312611328),
			capacity: b(85095874560), cause: "exhaustion"}},
	{class: 6, name: "sizes/XRT currently allocated and HBM capacity", src: "https://github.com/pytorch/xla/issues/1735", file: "tpu-runtime-program-load_xrt_breakdown.txt",
		want: want{code: "E0101", family: famProgramLoad, backend: "tpu", space: "hbm", requested: b(4241280205), free: b(2061584302), reserved: b(0), reservable: b(2061584302),
			used: b(6532939776), capacity: b(8589934592), cause: "exhaustion"}},
}

func TestRecognitionClasses(t *testing.T) {
	perClass := map[int]int{}
	for _, c := range classRows {
		perClass[c.class]++
		t.Run(c.name, func(t *testing.T) {
			text := c.body(t)
			if MayContain(text) == c.notPrefiltered {
				t.Errorf("MayContain = %v, want %v", !c.notPrefiltered, c.notPrefiltered)
			}
			r, ok := Recognize(text)
			if c.notPrefiltered {
				if ok {
					t.Errorf("recognised (%s) what MayContain rejects", r.Family)
				}
				return // a known miss of the prefilter: Recognize follows it
			}
			if !ok {
				t.Fatal("not recognised")
			}
			w := c.want
			w.category = refinedCategory[w.family]
			checkReport(t, r, w)
		})
	}
	for class := 1; class <= 6; class++ {
		if perClass[class] < 3 {
			t.Errorf("class %d has %d fixtures, want several", class, perClass[class])
		}
	}
}
