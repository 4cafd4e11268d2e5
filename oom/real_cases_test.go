// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// realOOM is one capture case that raised an OOM exception. Each has three
// files: NAME.exception.txt (str(e)), NAME.traceback.txt (format_exc) and
// NAME.stderr.txt (C++ log lines, then Python's uncaught-exception print).
type realOOM struct {
	name string
	// script is the manifest path (in this case) of the bytes the script
	// asked for; allocCase/allocPath locate the buffer XLA asked the allocator
	// for (memory_analysis for a jit; "" when it is the script's figure).
	script, allocCase, allocPath string
	token                        string // the size the exception prints: TSL human size, exact bytes (see exact) or ""
	allocator                    string // the allocator the exception names
	program                      string // [executable_name='...'], "" when absent
	execFirst                    bool   // [executable_name] payload before [tf-allocator-allocation-error]
	phase                        string
	excFamily                    string // family of the exception and traceback
	// For statuses other than the allocator adapter's device one, "Out of
	// memory while trying to allocate <token> with allocator <allocator> on
	// device 0." (zero in the rows of that form):
	message          string       // the status message the exception prints instead
	exact            bool         // token is exact bytes ("100000595968B"), not a TSL size; "" token: no size
	noPayload        bool         // no [tf-allocator-allocation-error=''] payload (not the adapter's status)
	noDevice         bool         // the exception names no device
	space            string       // memory space ("host": pinned host memory)
	instruction      string       // the kernel a jaxlib status names
	excUsed, excPool grammar.Size // read from the exception itself (VMM's pa_allocated and pa_budget)
	absent           []string     // advice no record may get
	// The stderr record: the exact figure the allocator log line printed, how
	// it is printed (a Sprintf format), and how it relates to the allocation:
	// "bfc" rounded up to 256, "exact" the request itself, "vmm" rounded up
	// to the VMM allocator's granularity (2 MiB on this GPU).
	stderrReq      int64
	stderrLit      string
	relation       string
	stderrFamily   string       // "" is gpu-allocator-status (Python's print of the exception)
	stderrNoDevice bool         // nothing in the stderr record names a device either
	holder         *realHolder  // stderr only; nil: not asserted here (TestAllocatorDump asserts older captures')
	free, capacity grammar.Size // stderr only: cuMemAllocAsync's "Free memory/Total memory"
	pool           grammar.Size // stderr only: the allocator's pool limit (BFC summary, cudaMallocAsync stats)
	used           grammar.Size // stderr only: the allocator's stats "InUse" (BFC, cudaMallocAsync)
	cause          string       // stderr only
	advice         []string
	stderrAdvice   []string
	stderrAbsent   []string // advice the stderr record must not get
}

const (
	realBFCLit      = "(rounded to %d)"
	realPlatformLit = "(%d bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY"
	realAsyncLit    = "cuMemAllocAsync failed to allocate %d bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY"
	realAdvFrac     = "XLA_PYTHON_CLIENT_MEM_FRACTION"
	realAdvFoot     = "donate_argnums"
	realAdvAutotune = "--xla_gpu_autotune_level=0"
	realAdvWhole    = "larger than the whole device (79.18 GiB;"
	realAdvFallback = "XLA falls back to a smaller pool and the program goes on"
	realAdvPool     = "larger than XLA's whole memory pool"
	realAdvHostPool = "XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to at least 94 (GiB;" // 93.13 GiB requested, nothing pinned yet
	realAdvPinned   = "pinned host memory used for transfers and host offload"
)

var realOOMs = []realOOM{
	{name: "device_put", script: "result.requested.bytes", token: "93.13GiB", allocator: "GPU_0_bfc",
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(63758789509), cause: grammar.CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: grammar.KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: grammar.KnownSize(0)},
	{name: "jit_temps", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_pool_rows_50000.temp_size_in_bytes",
		token: "69.85GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: true,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 75003125760, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(63758789509), cause: grammar.CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: grammar.KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: grammar.KnownSize(1000448)},
	{name: "jit_temps_defaultlog", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_pool_rows_50000.temp_size_in_bytes",
		token: "69.85GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: false,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 75003125760, stderrLit: realBFCLit, relation: "bfc",
		advice: []string{realAdvFrac, realAdvFoot}},
	{name: "jit_temps_vmodule", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_pool_rows_50000.temp_size_in_bytes",
		token: "69.85GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: true,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 75003125760, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(63758789509), cause: grammar.CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: grammar.KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: grammar.KnownSize(1000448)},
	{name: "jit_output", script: "result.requested.output.bytes", token: "93.13GiB", allocator: "GPU_0_bfc",
		program: "jit_make_big_output", execFirst: true,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(63758789509), cause: grammar.CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: grammar.KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: grammar.KnownSize(1000243)},
	// Compiles (only a rematerialization warning), fails at run time.
	{name: "compile_exceeds_device", script: "result.requested.temporaries_total_bytes",
		allocCase: "compile_exceeds_device", allocPath: "result.memory_analysis.temp_size_in_bytes",
		token: "167.64GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: true,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 180007500544, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(63758789509), cause: grammar.CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: grammar.KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: grammar.KnownSize(1000448)},
	{name: "mem_fraction_jit", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_small_rows_4000.temp_size_in_bytes",
		token: "5.59GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: false,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 6000500736, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(4252017623), cause: grammar.CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: grammar.KnownSize(4252017623), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: grammar.KnownSize(1000448)},
	{name: "mem_fraction_fragmented", script: "result.requested.final_request.bytes", token: "1.50GiB",
		allocator: "GPU_0_bfc", program: "jit_broadcast_in_dim", execFirst: true,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 1610612736, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(2104533975), cause: grammar.CauseFragmentation, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: grammar.KnownSize(4252017623), advice: []string{realAdvFrac, realAdvFoot}, stderrAbsent: []string{realAdvPool}, used: grammar.KnownSize(2147483648)},
	{name: "mem_fraction_device_put", script: "result.requested.bytes", token: "6.00GiB", allocator: "GPU_0_bfc",
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 6442450944, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(4252017623), cause: grammar.CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: grammar.KnownSize(4252017623), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: grammar.KnownSize(0)},
	{name: "platform_device_put", script: "result.requested.bytes", token: "93.13GiB", allocator: "SE_0_space_0",
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realPlatformLit, relation: "exact",
		advice: []string{realAdvFrac, realAdvFoot}},
	{name: "platform_jit", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_card_rows_120000.temp_size_in_bytes",
		token: "167.64GiB", allocator: "SE_0_space_0", program: "jit_temps_exceed_memory", execFirst: false,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 180007500304, stderrLit: realPlatformLit, relation: "exact",
		advice: []string{realAdvFrac, realAdvFoot}},
	{name: "cuda_async_device_put", script: "result.requested.bytes", token: "93.13GiB", allocator: "gpu_async_0",
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realAsyncLit, relation: "exact",
		free: grammar.KnownSize(20701184000), capacity: grammar.KnownSize(85017493504), cause: grammar.CauseExhaustion, used: grammar.KnownSize(0), // stats "InUse: 0B"
		pool: grammar.KnownSize(63758789509), advice: []string{realAdvFoot}, stderrAdvice: []string{realAdvWhole, "only 19.28 GiB is free"},
		stderrAbsent: []string{realAdvFrac}}, // no allocator setting fits a request larger than the GPU
	{name: "cuda_async_jit", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_card_rows_120000.temp_size_in_bytes",
		token: "167.64GiB", allocator: "gpu_async_0", program: "jit_temps_exceed_memory", execFirst: true,
		phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 180007500304, stderrLit: realAsyncLit, relation: "exact",
		free: grammar.KnownSize(20676018176), capacity: grammar.KnownSize(85017493504), cause: grammar.CauseExhaustion, used: grammar.KnownSize(1000038), // stats "InUse: 976.6KiB"
		pool: grammar.KnownSize(63758789509), advice: []string{realAdvFoot}, stderrAdvice: []string{realAdvWhole, "only 19.26 GiB is free"},
		stderrAbsent: []string{realAdvFrac}}, // no allocator setting fits a request larger than the GPU
	// Compile-time failure in the GPU autotuner. The manifest has no figure
	// for the 32 MiB scratch; it checks instead that the request could not
	// fit the largest free block before the failure.
	{name: "autotune_starved", token: "32.00MiB", allocator: "GPU_0_bfc",
		phase: grammar.PhaseCompile, excFamily: "gpu-compile-autotuner", stderrReq: 33554432,
		advice: []string{realAdvAutotune, realAdvFrac}},
	// XLA_PYTHON_CLIENT_ALLOCATOR=vmm: the status prints exact bytes, the
	// request rounded up to the allocation granularity, and pa_budget, the
	// allocator's budget (total memory × the memory fraction, see
	// TestRealWrinkles): a pool limit, not the GPU. Only Python's print of
	// the exception is in the stderr; nothing names a device.
	{name: "vmm_device_put", script: "result.requested.bytes", token: "100000595968B", exact: true,
		message:   "Not enough PA budget: pa_allocated=0B, allocation_size=100000595968B, pa_budget=63763120128B",
		noPayload: true, noDevice: true, excUsed: grammar.KnownSize(0), excPool: grammar.KnownSize(63763120128),
		phase: grammar.PhaseRuntime, excFamily: "gpu-vmm-allocator", stderrReq: 100000595968, stderrLit: "allocation_size=%dB", relation: "vmm",
		stderrFamily: "gpu-vmm-allocator", stderrNoDevice: true, used: grammar.KnownSize(0), pool: grammar.KnownSize(63763120128), holder: &realHolder{},
		advice: []string{realAdvPool, "helps only if the GPU has well over 93.13 GiB in total", realAdvFoot}, absent: []string{"Give XLA more of the GPU"}},
	{name: "vmm_jit", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_card_rows_120000.temp_size_in_bytes",
		token: "180009041920B", exact: true, program: "jit_temps_exceed_memory",
		message:   "Not enough PA budget: pa_allocated=4194304B, allocation_size=180009041920B, pa_budget=63763120128B",
		noPayload: true, noDevice: true, excUsed: grammar.KnownSize(4194304), excPool: grammar.KnownSize(63763120128),
		phase: grammar.PhaseRuntime, excFamily: "gpu-vmm-allocator", stderrReq: 180009041920, stderrLit: "allocation_size=%dB", relation: "vmm",
		stderrFamily: "gpu-vmm-allocator", stderrNoDevice: true, used: grammar.KnownSize(4194304), pool: grammar.KnownSize(63763120128), holder: &realHolder{},
		advice: []string{realAdvPool, "helps only if the GPU has well over 167.65 GiB in total", realAdvFoot}, absent: []string{"Give XLA more of the GPU"}},
	// device_put into memory_kind="pinned_host": XLA's pinned host pool
	// (allocator xla_gpu_host_bfc) is sized by XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB
	// (64 GiB by default), not by the GPU's memory fraction. Its BFC
	// warning and summary are in the stderr; the pool was still empty.
	{name: "pinned_host_device_put", script: "result.requested.bytes", token: "93.13GiB", allocator: "xla_gpu_host_bfc",
		message: "Out of host memory while trying to allocate 93.13GiB with allocator xla_gpu_host_bfc on device 0. " +
			"Please set the environment variable XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to allocate larger host memory than the default 64 GB.",
		space: "host", phase: grammar.PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realBFCLit, relation: "bfc",
		free: grammar.KnownSize(68719476736), cause: grammar.CauseExhaustion, // "total free in pool 0B, ... unallocated bytes 64.00GiB"
		pool: grammar.KnownSize(68719476736), holder: &realHolder{}, // "pool size 0B, pool limit 64.00GiB": no chunks
		advice: []string{realAdvHostPool, realAdvPinned}, stderrAdvice: []string{"larger than XLA's whole pinned host memory pool (pool limit 64.00 GiB)"},
		absent: []string{realAdvFrac, "Give XLA more of the GPU", "per-device footprint", "memory pool on this GPU"}, used: grammar.KnownSize(0)},
	// jaxlib's cuSOLVER kernel could not get its workspace from XLA's pool
	// (fraction 0.05), which four jnp.ones arrays (jit_broadcast_in_dim, the
	// memory holder) had filled. The status prints no size; the BFC warning
	// logged before it does, and its dump names the holder. The manifest has
	// no figure for the workspace: TestRealCaptures checks it against the
	// largest free block instead.
	{name: "solver_workspace", program: "jit__lambda", message: "Unable to allocate device workspace for syevBatched",
		noPayload: true, noDevice: true, instruction: "syevBatched",
		phase: grammar.PhaseRuntime, excFamily: "gpu-jaxlib-workspace", stderrReq: 270648320, stderrLit: realBFCLit,
		stderrFamily: "gpu-jaxlib-workspace",                                       // device 0: the BFC line's GPU_0_bfc
		free:         grammar.KnownSize(100642324), cause: grammar.CauseExhaustion, // "total free in pool 95.98MiB, ... unallocated bytes 0B"
		pool: grammar.KnownSize(4252017623), holder: &realHolder{"jit_broadcast_in_dim", 4016046080},
		advice: []string{realAdvFoot, realAdvFrac}, stderrAdvice: []string{"needs 258.11 MiB but only 95.98 MiB is free"}, used: grammar.KnownSize(4155380859)},
}

// Runs that raised nothing (control, memory_analysis, cuda_async_jit_pool,
// prealloc_*). prealloc_100 and prealloc_0995 log a real driver OOM at
// start-up, "[0] Failed to allocate device memory of 79.18GiB (85018542080
// bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY", then XLA silently
// falls back to a smaller pool and the program runs (manifest: returncode 0,
// pool_bytes < bytes_limit). That line is an allocation attempt: a memory
// warning (allocation_attempt, exact bytes), never a failure, so none of the
// six is an OOM.
var realStartup = map[string]bool{"prealloc_100": true, "prealloc_0995": true}

var realQuiet = []string{"control", "memory_analysis", "cuda_async_jit_pool", "prealloc_099", "prealloc_100", "prealloc_0995"}

func readReal(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// recognizeReal runs both passes and requires MayContain to agree with a
// recognised text (MayContain may pass non-OOM text; that is allowed).
func recognizeReal(t *testing.T, text string) (grammar.Report, bool) {
	t.Helper()
	r, ok := Recognize(text)
	if ok && !MayContain(text) {
		t.Errorf("MayContain = false on a recognised text")
	}
	return r, ok
}
