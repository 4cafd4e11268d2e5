// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lookalikes mention memory, allocation or RESOURCE_EXHAUSTED but are not XLA
// OOM failures. quiet marks the ones MayContain itself must reject, so that
// they never reach Recognize.
// lookalike is a text that must not be recognised, in a class of look-alikes
// (lookalikeClasses).
type lookalike struct {
	class, name, text string
	quiet             bool
}

// lookalikeClasses are the kinds of text the recogniser must tell from an
// OOM; TestLookalikeClasses wants at least one negative of each.
var lookalikeClasses = []string{
	"quota", "bfc-non-fatal", "remat-and-preallocation", "init-failure", "autotuner-and-triton",
	"foreign-oom", "other-xla-code", "gpu-compiler-warning", "ordinary-memory-talk",
	"startup-backoff", "driver-not-oom", "foreign-gpu-library", "plugin-allocator", "cudnn-handle", "memory-statistics",
	"host-process-memory", "host-resource",
	"source-template", // the look-alikes of the coverage table (coverage_test.go)
}

var lookalikes = []lookalike{
	// gRPC and cloud quota/capacity RESOURCE_EXHAUSTED
	{"quota", "grpc message size", `rpc error: code = ResourceExhausted desc = grpc: received message larger than max (5242880 vs. 4194304)`, false},
	{"quota", "grpc status", `RESOURCE_EXHAUSTED: grpc: received message larger than max (8388608 vs. 4194304)`, false},
	{"quota", "grpc python", `grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with: status = StatusCode.RESOURCE_EXHAUSTED details = "Received message larger than max (10485760 vs. 4194304)">`, false},
	{"quota", "api quota", `google.api_core.exceptions.ResourceExhausted: 429 RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Generate Content API requests per minute'`, false},
	{"quota", "tpu quota", `ERROR: (gcloud.compute.tpus.tpu-vm.create) Quota 'TPUS_PER_TPU_FAMILY' exceeded. Limit: 32.0 in region us-central2.`, true},
	{"quota", "zone pool", `ZONE_RESOURCE_POOL_EXHAUSTED: The zone 'projects/p/zones/us-central1-a' does not have enough resources available to fulfill the request. Try a different zone, or try again later.`, true},
	{"quota", "no capacity", `code: RESOURCE_EXHAUSTED, message: There is no more capacity in the zone "us-east5-a"; you can try in another zone where Cloud TPU Nodes are offered`, false},
	// BFC allocator: non-fatal retries, statistics, occupancy
	{"bfc-non-fatal", "bfc freed_by_count", `2024-01-01 00:00:00.000000: W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.16GiB with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.`, false},
	{"bfc-non-fatal", "bfc freed_by_count old TF", `W tensorflow/core/common_runtime/bfc_allocator.cc:243] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.16GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.`, false},
	{"bfc-non-fatal", "bfc freed_by_count head", `W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.16GiB from the top end with freed_by_count=3.`, false},
	{"bfc-non-fatal", "bfc bin", "I external/tsl/tsl/framework/bfc_allocator.cc:1046] Bin (256): \tTotal Chunks: 12, Chunks in use: 11. 3.0KiB allocated for chunks. 2.8KiB in use in bin. 1.2KiB client-requested in use in bin.", true},
	{"bfc-non-fatal", "bfc sum", `I external/tsl/tsl/framework/bfc_allocator.cc:1110] Sum Total of in-use chunks: 9.09GiB`, true},
	{"bfc-non-fatal", "bfc limit", `Limit:                 11281553818`, true},
	{"bfc-non-fatal", "bfc stats TSL", "Stats: \nLimit:                 10.51GiB\nInUse:                  9.09GiB\nMaxInUse:              10.12GiB\nNumAllocs:                  3320\nMaxAllocSize:            1.97GiB", true},
	{"bfc-non-fatal", "bfc occupancy", `2024-05-28 07:02:44.350162: W external/tsl/tsl/framework/bfc_allocator.cc:494] ***************************__******************************************************************_____`, true},
	{"bfc-non-fatal", "bfc dump header", `I external/tsl/tsl/framework/bfc_allocator.cc:1039] BFCAllocator dump for GPU_0_bfc`, true},
	// rematerialization and preallocation
	{"remat-and-preallocation", "remat", `W0905 17:27:21 hlo_rematerialization.cc:3231] Can't reduce memory use below 57.03GiB (61237292825 bytes) by rematerialization; only reduced to 68.32GiB (73361280968 bytes), down from 68.32GiB (73361280968 bytes) originally`, false}, // a memory warning: MayContain passes it (warning_test.go)
	{"remat-and-preallocation", "prealloc", `I0000 00:00:1758277414.566053 1017489 gpu_helpers.cc:136] XLA backend allocating 16491332239 bytes on device 0 for BFCAllocator.`, true},
	{"remat-and-preallocation", "prealloc will use", `I0000 00:00:1758277414.566053 1017489 gpu_helpers.cc:136] XLA backend will use up to 16491332239 bytes on device 0 for BFCAllocator.`, true},
	{"remat-and-preallocation", "prealloc async", `XLA backend allocating 16491332239 bytes on device 1 for CudaAsyncAllocator.`, true},
	// initialisation failures
	{"init-failure", "cuda init", `CUDA backend failed to initialize: INTERNAL: no supported devices found for platform CUDA.This may be due to JAX pre-allocating too much device memory, leaving too little for CUDA library initialization. See https://docs.jax.dev/en/latest/gpu_memory_allocation.html for more details and potential workarounds.(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)`, false},
	{"init-failure", "cuda init oom-ish", `An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. CUDA backend failed to initialize: RESOURCE_EXHAUSTED: Failed to allocate device memory of 1.00GiB: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY`, false},
	{"init-failure", "cuInit", `E0413 10:22:33.123456 1234 cuda_executor.cc:1228] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected`, false},
	{"init-failure", "tpu in use", `RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid 1234. Not attempting to load libtpu.so in this process.`, false},
	// autotuner fallbacks, Triton shared memory
	{"autotuner-and-triton", "cudnn fallback", `W tensorflow/compiler/xla/service/gpu/gpu_conv_algorithm_picker.cc:729] Failed to determine best cudnn convolution algorithm: Resource exhausted: Out of memory while trying to allocate 16777716 bytes.`, false},
	{"autotuner-and-triton", "cublas fallback", `W0301 12:00:00.000000 4242 gemm_algorithm_picker.cc:162] Failed to find best cuBLAS algorithm, GEMM performance might be suboptimal: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 33554432 bytes.`, false}, // template of gemm_algorithm_picker.cc; an early-warning kind
	{"autotuner-and-triton", "triton smem", `RESOURCE_EXHAUSTED: Shared memory size limit exceeded: requested 110592, available: 101376`, false},
	{"autotuner-and-triton", "triton smem context", `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Shared memory size limit exceeded: requested 262144, available: 232448, context: [Fusion: triton_gemm_dot.3]`, false},
	// PyTorch's native OOM (not XLA; TensorFlow's own are tagged, see recognition_classes_test.go)
	{"foreign-oom", "torch oom", `torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.06 MiB free; 14.71 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.`, true},
	{"foreign-oom", "torch oom old", `RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.70 GiB total capacity; 19.47 GiB already allocated; 1.44 GiB free; 20.85 GiB reserved in total by PyTorch)`, false},
	// other XLA errors that carry codes
	{"other-xla-code", "E1200", "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:\nTensor which is moved to host (starting from square.790) is returned from the entry computation but the layout for this output is not set to host memory.\nSee https://openxla.org/xla/errors/error_1200 for more details.", false},
	{"other-xla-code", "E0200", `jax.errors.JaxRuntimeError: INTERNAL: E0200: RuntimeUnexpectedCoreHalt: Program or fatal error occurred; computation may be invalid: ... Please read https://openxla.org/xla/errors/error_0200 carefully`, false},
	{"other-xla-code", "E3001", `XLA:TPU compile permanent error. Compilation failure: No viable logical replica count for the embedding table with metadata: max_nz_per_row = 141352, total_spmem_size_bytes = 524288)`, true},
	{"other-xla-code", "E0007 alone", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E0007: ResourceExhausted: Shared memory size limit exceeded: requested 110592, available: 101376`, false},
	// GPU compiler warnings seen in real captures (testdata/real)
	{"gpu-compiler-warning", "schedule base limit", `E1122 10:53:02.114250     727 gpu_hlo_schedule.cc:1068] The byte size of input/output arguments (100000000000) exceeds the base limit (63753420390). This indicates an error in the calculation!`, true},
	{"gpu-compiler-warning", "allocator summary", `I1122 10:52:34.461500     537 bfc_allocator.cc:1120] Allocator memory summary: pool size 0B, in use 0B, largest free block 0B`, true},
	{"gpu-compiler-warning", "empty pool", `W1122 10:52:34.461615     537 bfc_allocator.cc:609] <allocator contains no memory>`, true},
	// the widened recognition's look-alikes: retries, other drivers' and libraries' failures, statistics
	// xla/stream_executor/cuda/cuda_driver.cc DeviceAllocate logs at INFO; BFC retries
	{"startup-backoff", "INFO back-off, CUDA", `I0000 00:00:1758277414.566053 1017489 cuda_driver.cc:1201] failed to allocate 78.39GiB (84169195520 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory`, false},
	// old TF cuda_driver.cc at INFO
	{"startup-backoff", "INFO back-off, TSL header", `2019-03-12 10:00:00.000000: I tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 3.77G (4046333952 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory`, false},
	// xla/stream_executor/rocm/rocm_driver.cc DeviceAllocate logs at INFO
	{"startup-backoff", "INFO back-off, ROCm, shrinking sizes", "I0101 00:00:01.000000 7 rocm_driver.cc:1082] failed to allocate 60.00GiB (64424509440 bytes) from device: HIP_ERROR_OutOfMemory\n" +
		"I0101 00:00:01.000100 7 rocm_driver.cc:1082] failed to allocate 54.00GiB (57982058496 bytes) from device: HIP_ERROR_OutOfMemory", false},
	// jax/_src/xla_bridge.py: JAX logs the failure and falls back to another backend
	{"init-failure", "context retain in JAX's fallback warning", `WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: INTERNAL: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 25386352640.(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)`, false},
	// xla/stream_executor/cuda/cuda_stream.cc with another CUresult
	{"driver-not-oom", "driver error that is not out of memory", `INTERNAL: Failed to launch CUDA kernel: fusion_12; block dims: 128x1x1; grid dims: 4096x1x1; shared memory size: 0: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered`, false},
	// NVIDIA Warp native allocator error
	{"foreign-gpu-library", "NVIDIA Warp", "Warp CUDA error 2: out of memory (in function wp_alloc_device_async, /builds/omniverse/warp/warp/native/warp.cu:291)\nRuntimeError: Failed to allocate 4294967296 bytes on device 'cuda:0'", false},
	// xla/backends/gpu/codegen/triton/xtile_compiler.cc (Pallas on GPU lowers through Triton)
	{"autotuner-and-triton", "Pallas GPU shared memory", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Shared memory size limit exceeded: requested 262144, available: 232448, context: [pallas_call kernel=matmul_kernel]`, false},
	// triton.runtime.errors (kernels outside XLA)
	{"autotuner-and-triton", "Triton kernel shared memory", `triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376. Reducing block sizes or num_stages may help.`, false},
	// jax-metal plugin, command buffer out of memory
	{"plugin-allocator", "third-party PJRT plugin (Metal)", `jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Error: command buffer exited with error status. The Metal Performance Shaders operations encoded on it may not have completed. Error: (null) Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)`, false},
	// composed: AWS Neuron runtime allocation failure behind a PJRT status
	{"plugin-allocator", "third-party PJRT plugin (Neuron)", `RuntimeError: RESOURCE_EXHAUSTED: nrt_tensor_allocate status=4 message="Allocation Failure": Failed to allocate 2147483648 bytes on NeuronCore 0 (HBM)`, false},
	// xla/stream_executor/cuda/cuda_dnn.cc CudnnSupport::Init
	{"cudnn-handle", "cuDNN handle creation with free/total", "E0105 09:01:02.000000 1 cuda_dnn.cc:535] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\nE0105 09:01:02.000100 1 cuda_dnn.cc:539] Memory usage: 5636096 bytes free, 12622168064 bytes total.", false},
	// gpu_cudamallocasync_allocator.cc stats dump without a failure
	{"memory-statistics", "cudaMallocAsync statistics alone", "Stats: Limit:                        59.38GiB\nInUse:                        976.6KiB\nMaxInUse:                     40.12MiB\nNumAllocs:                          18", false},
	// jax Device.memory_stats() printed by a training script
	{"memory-statistics", "JAX memory_stats printout", `{'bytes_in_use': 8589934592, 'bytes_limit': 63753420390, 'peak_bytes_in_use': 12884901888, 'largest_alloc_size': 4294967296, 'num_allocs': 120}`, false},
	// numba.cuda driver error (not XLA)
	{"foreign-gpu-library", "Numba CUDA OOM", `numba.cuda.cudadrv.driver.CudaAPIError: [2] Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY`, false},
	// xla/stream_executor/cuda/cuda_driver.cc LoadPtx (register allocation, not memory)
	{"driver-not-oom", "register allocation at PTX load", `RESOURCE_EXHAUSTED: Failed to load PTX text as a module (register allocation failed): INTERNAL: CUDA error: : CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed`, false},
	// ordinary lines that mention memory or allocation
	{"ordinary-memory-talk", "peak memory", `I1010 10:10:10.101 3321 profiler.py:61] Peak memory usage on device 0 during step 500: 61.2 GiB of 80.0 GiB`, true},
	{"ordinary-memory-talk", "java oom", `Exception in thread "main" java.lang.OutOfMemoryError: Java heap space`, true},
	// The host-memory kills stay untagged here (package hostoom reads them).
	{"ordinary-memory-talk", "kernel oom killer", `Out of memory: Killed process 1234 (python3) total-vm:123456789kB, anon-rss:98765432kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:200000kB oom_score_adj:0`, false},
	{"ordinary-memory-talk", "attempting other", `Attempting to allocate 3 more workers to the data loader`, true},
	// Lines with the new bare-form cues ("ailed to allocate", "not allocate", "when allocating", "OOM") that are no memory failure.
	{"ordinary-memory-talk", "scheduler could not allocate a GPU", `ERROR:root:Failed to allocate a GPU from the scheduler queue: no nodes available`, false},
	{"quota", "TPU slice at ERROR", `E0101 00:00:00.000000 1 scheduler.cc:12] Failed to allocate TPU slice v4-32 in zone us-central2-b: no capacity`, false},
	{"host-resource", "port", `Error: failed to allocate port 8080 for the metrics server`, false},
	{"ordinary-memory-talk", "device busy", `ERROR:root:Cannot allocate device 3: device busy`, false},
	{"ordinary-memory-talk", "OOM retry talk at INFO", `I0101 00:00:00.000000 1 oom_guard.py:3] OOM when allocating is retried with a smaller batch (auto_batch=True)`, false},
	{"ordinary-memory-talk", "OOM killer mention", `INFO: OOM killer disabled for container trainer`, true},
	{"quota", "GPUs by quota", `Training failed: could not allocate 8 GPUs for 2 hours (quota)`, false},
	{"host-resource", "pod IP address", `Failed to allocate IP address for pod trainer-0: no addresses available in range set 10.0.0.0/24`, false},
	{"quota", "device plugin", `kubelet: failed to allocate device plugin resource nvidia.com/gpu: requested 8, available 4`, false},
	{"ordinary-memory-talk", "allocation done", `I1010 10:10:11.000 3321 allocator_stats.py:40] Allocation of 1204 live buffers finished in 3 ms`, true},
	{"ordinary-memory-talk", "allocator stats", `I1010 10:10:11.000 3321 allocator_stats.py:40] Allocation histogram updated: 1204 live buffers, 2.1GiB in use`, true},
	{"ordinary-memory-talk", "kv cache", `INFO 05-28 07:03:09 [gpu_worker.py:227] Available KV cache memory: 61.27 GiB; allocating 2.00GiB for the prefix cache`, true},
	{"ordinary-memory-talk", "resource ok", `Resource usage is fine: 12 GiB of memory in use`, true},
	{"ordinary-memory-talk", "python MemoryError", `MemoryError: Unable to allocate 7.45 GiB for an array with shape (1000000000,) and data type float64`, false},
	// The last-resort layer's look-alikes (families/generic/generic.go): an error context and an
	// allocation that failed, but not XLA's memory. NumPy's host RAM, logged at
	// ERROR by a data loader (composed).
	{"host-process-memory", "NumPy MemoryError logged at ERROR", `ERROR:root:Batch loading failed: numpy.core._exceptions._ArrayMemoryError: Unable to allocate 7.45 GiB for an array with shape (1000000000,) and data type float64`, false},
	// Guard "Cannot allocate memory": strerror(ENOMEM) of a shared-memory segment (composed).
	{"host-process-memory", "ENOMEM at ERROR", `E1122 10:00:00.000000 4242 shared_memory.cc:97] Failed to allocate 2.00GiB (2147483648 bytes) of shared memory for /dev/shm/plasma: Cannot allocate memory`, false},
	// Guard "MemoryError": PyTorch's DataLoader re-raises a worker's NumPy MemoryError (composed).
	{"host-process-memory", "DataLoader worker MemoryError at ERROR", `ERROR:root:Batch loading failed: RuntimeError: Caught MemoryError in DataLoader worker process 0. numpy.core._exceptions._ArrayMemoryError: Unable to allocate 7.45 GiB for an array with shape (1000000000,) and data type float64`, false},
	// Guard "Tried to allocate": PyTorch's CUDA OOM in a pipeline that also runs JAX (composed).
	{"foreign-oom", "PyTorch CUDA OOM next to JAX", `ERROR:root:torch reranker failed next to the JAX encoder: RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.70 GiB total capacity; 19.47 GiB already allocated; 1.44 GiB free; 20.85 GiB reserved in total by PyTorch)`, false},
	// A survivable BFC retry before an unrelated status (composed).
	{"bfc-non-fatal", "BFC retry before a Triton status", "Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.16GiB with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.\n" +
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Shared memory size limit exceeded: requested 262144, available: 232448, context: [Fusion: triton_gemm_dot.3]`, false},
	// XLA's own RESOURCE_EXHAUSTED statuses that are not device memory (templates of the 2026
	// tree, with values): none states a failed allocation or memory that ran out.
	{"autotuner-and-triton", "Blackwell tensor memory", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Tensor memory size limit exceeded: requested 768, available: 512`, false},                                                                   // xla/backends/gpu/codegen/triton/xtile_compiler.cc
	{"autotuner-and-triton", "autotuner register spilling", `E0112 10:00:00.000000 77 codegen_orchestrator.cc:214] RESOURCE_EXHAUSTED: Discarding compilation due to register spilling.`, false},                                                     // xla/backends/autotuner/codegen_orchestrator.cc
	{"other-xla-code", "host memory pool in use", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: All 16 elements in the host memory pool are in use. This is likely because there are more than 16 concurrent calls to an XLA executable.`, false}, // xla/backends/gpu/runtime/host_memory_pool.cc
	{"other-xla-code", "object pool", `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Object pool has no available object`, false},                                                                                                        // xla/runtime/object_pool.h
	{"autotuner-and-triton", "redzone scratch limit", `E0301 12:00:00.000000 4242 gemm_algorithm_picker.cc:162] RESOURCE_EXHAUSTED: Allocating 4294967296 bytes exceeds the memory limit of 2147483648 bytes.`, false},                               // xla/stream_executor/gpu/redzone_allocator.cc
	{"other-xla-code", "logical device count", `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Requested logical device count (16) with replica count (16) exceeds the number of available physical devices on the target (8)`, false},    // xla/service/service.cc
	{"other-xla-code", "program serialization size", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: HLO program serialization exceeds max 2147483647 bytes`, false},                                                                                // xla/pjrt/c/pjrt_c_api_wrapper_impl.cc
	{"host-resource", "ZIP archive size", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: ZIP archive size exceeds 4GB limit.`, false},                                                                                                              // xla/tsl/lib/io/zip_writer.cc
	// No guard needed (no allocation failure, no device or host memory that ran out):
	{"host-process-memory", "Kubernetes OOMKilled", "Last State:     Terminated\n  Reason:       OOMKilled\n  Exit Code:    137", true},
	{"host-process-memory", "Ray memory monitor", `ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory. Memory on the node (IP: 10.0.0.1, ID: 6a3c) where the task (task ID: 16310a0f, name=train_step, pid=1234, memory used=30.10GB) was running was 61.00GB / 64.00GB (0.953125), which exceeds the memory usage threshold of 0.95.`, false},
	{"host-process-memory", "kernel cgroup OOM killer with a JAX process", `Nov 22 10:00:00 tpu-vm-0 kernel: Memory cgroup out of memory: Killed process 4242 (jax_train.py) total-vm:123456789kB, anon-rss:98765432kB, file-rss:0kB`, false},
	{"foreign-oom", "PyTorch OOM logged at ERROR", `ERROR 05-28 07:03:09 [worker.py:88] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in use.`, false},
	{"quota", "GPU quota", `google.api_core.exceptions.ResourceExhausted: 429 RESOURCE_EXHAUSTED: The project ran out of GPU quota in region us-central1 (NVIDIA_H100_GPUS: 8 of 8 in use).`, false},
	{"quota", "API rate limit", `google.api_core.exceptions.ResourceExhausted: 429 Resource has been exhausted (e.g. check quota).`, false},
	{"host-resource", "TensorFlow: too many open files", `tensorflow.python.framework.errors_impl.ResourceExhaustedError: /data/train-00042-of-01024.tfrecord; Too many open files`, false},
	{"host-resource", "TensorFlow checkpoint: disk full", `tensorflow.python.framework.errors_impl.ResourceExhaustedError: /tmp/ckpt/model.ckpt-1000_temp/part-00000-of-00001.data-00000-of-00001.tempstate123; No space left on device`, false},
	{"host-resource", "gRPC message size at ERROR", `E1122 10:00:00.000000 1 server.cc:77] RESOURCE_EXHAUSTED: grpc: received message larger than max (67108864 vs. 4194304)`, false},
}

func TestLookalikes(t *testing.T) {
	for _, c := range lookalikes {
		t.Run(c.name, func(t *testing.T) {
			if r, ok := Recognize(c.text); ok {
				t.Errorf("recognised as %s/%s: %+v", r.Code, r.Family, r)
			}
			if c.quiet && MayContain(c.text) {
				t.Errorf("MayContain = true")
			}
		})
	}
}

// realNegatives are raw GPU captures (their only copy is in testdata/real)
// of runs that raised nothing and logged no OOM.
var realNegatives = []string{"control.stderr.txt", "cuda_async_jit_pool.stderr.txt", "memory_analysis.stderr.txt", "prealloc_099.stderr.txt"}

func TestNegativeFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "negative", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatal(err, files)
	}
	for _, name := range realNegatives {
		files = append(files, filepath.Join(realDir, name))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := Recognize(string(data)); ok {
			t.Errorf("%s: recognised as %s/%s", f, r.Code, r.Family)
		}
	}
}

// ordinaryLines are realistic training/serving log lines with no OOM.
func ordinaryLines(t testing.TB) []string {
	data, err := os.ReadFile(filepath.Join("testdata", "ordinary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

func TestOrdinaryLines(t *testing.T) {
	for _, l := range ordinaryLines(t) {
		if MayContain(l) {
			t.Errorf("MayContain(%q) = true", l)
		}
		if _, ok := Recognize(l); ok {
			t.Errorf("Recognize(%q) = true", l)
		}
	}
}

func TestANSIAndEscapedRecords(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"vllm colours", "\x1b[1;36m(EngineCore_DP0 pid=896988)\x1b[0;0m ERROR 09-19 10:23:41 [core.py:700] jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)"},
		{"jupyter colours", "\x1b[0;31mXlaRuntimeError\x1b[0m: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M.\x1b[0m That was not possible. There are 6.43M free.; (0x0x1_HBM0)"},
		{"json escaped", `{"log":"ValueError: RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure:\nError allocating device buffer: Attempting to allocate 8.00M.\nThat was not possible. There are 6.43M free.; (0x0x1_HBM0)\n"}`},
		{"syslog", "Nov 22 10:00:00 tpu-vm-0 python3[1234]: ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible.\nNov 22 10:00:00 tpu-vm-0 python3[1234]: There are 6.43M free.; (0x0x1_HBM0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !MayContain(c.text) {
				t.Error("MayContain = false")
			}
			r, ok := Recognize(c.text)
			if !ok {
				t.Fatal("not recognised")
			}
			checkReport(t, r, want{code: "E0100", family: "tpu-runtime-buffer", backend: "tpu", space: "hbm", device: "0x0x1_HBM0", requested: b(8388608), free: b(6742344), cause: "exhaustion"})
		})
	}
}

// A bare GPU status (no RESOURCE_EXHAUSTED) still passes MayContain when the
// BufferAssignment dump follows it.
func TestBareStatusWithDump(t *testing.T) {
	text := "Out of memory while trying to allocate 6291456 bytes.\nBufferAssignment OOM Debugging.\nBufferAssignment stats:\n             parameter allocation:    6.00MiB\n"
	if !MayContain(text) {
		t.Error("MayContain = false")
	}
	if r, ok := Recognize(text); !ok || r.Backend != "gpu" || r.Requested.Bytes != 6291456 {
		t.Errorf("got %+v, %v", r, ok)
	}
}
