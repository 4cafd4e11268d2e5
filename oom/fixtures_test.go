// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// want is everything a fixture asserts about its Report. Name, Category,
// Phase and DocURL are checked from the code through catalogWant, a table
// written independently of catalog.go.
type want struct {
	code, family, backend, space, program, device, cause, instr     string
	requested, free, used, capacity, exceeded, reserved, reservable Size
	// rp is "" (none), "r0" (replica only) or "r0p34" (replica and partition).
	rp string
	// phase overrides the code's phase (E0007 has none of its own).
	phase string
	// category overrides the code's catalog category, for the families
	// that refine it with what failed (GPU driver, TensorFlow op).
	category string
	words    SparseCoreWords
	advice   []string // substrings the remediation must contain
}

var catalogWant = map[string]struct{ name, category, phase, doc string }{
	"E0007": {"ResourceExhausted", "Resource Exhausted: Out of Memory", PhaseRuntime, ""},
	"E0100": {"RuntimeBufferAllocationFailure", "Runtime: Buffer Allocation Failure", PhaseRuntime, "https://openxla.org/xla/errors/error_0100"},
	"E0101": {"RuntimeProgramAllocationFailure", "Runtime: Program Allocation Failure", PhaseRuntime, "https://openxla.org/xla/errors/error_0101"},
	"E1000": {"CompileTimeHbmOom", "Compile Time: HBM OOM", PhaseCompile, "https://openxla.org/xla/errors/error_1000"},
	"E1001": {"CompileTimeScopedVmemOom", "Compile Time: Scoped Vmem OOM", PhaseCompile, "https://openxla.org/xla/errors/error_1001"},
	"E3000": {"CompileTimeSparseCoreAllocationFailure", "Compile Time: SparseCore Allocation Failure", PhaseCompile, "https://openxla.org/xla/errors/error_3000"},
}

func b(n int64) Size { return KnownSize(n) }

// sizeNames names the Report sizes a want states, in the order reportSizes
// and want.sizes list them. PoolLimit, which only the GPU allocator families
// print, has checks of its own.
var sizeNames = [...]string{"Requested", "Free", "Used", "Capacity", "Exceeded", "Reserved", "Reservable"}

func reportSizes(r Report) [len(sizeNames)]Size {
	return [...]Size{r.Requested, r.Free, r.Used, r.Capacity, r.Exceeded, r.Reserved, r.Reservable}
}

func (w want) sizes() [len(sizeNames)]Size {
	return [...]Size{w.requested, w.free, w.used, w.capacity, w.exceeded, w.reserved, w.reservable}
}

// fixture is one real message. src names where the text comes from: a public
// URL, an OpenXLA error page, a capture under testdata/real, or the
// family's section of docs/message-formats.md; texts marked "composed" join
// verbatim pieces the sources elide.
type fixture struct {
	name, src string
	text      string // inline text, or
	file      string // a file under testdata/messages, or
	capture   string // a raw capture under testdata/real (its only copy)
	want      want
}

func (f fixture) body(t testing.TB) string {
	path := filepath.Join("testdata", "messages", f.file)
	switch {
	case f.capture != "":
		path = filepath.Join(realDir, f.capture)
	case f.file == "":
		return f.text
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var fixtures = []fixture{
	// ---- tpu-compile-hbm-used: TPU compile "Ran out of memory in memory space"
	{name: "tpu-compile-hbm-used/E1000 doc", src: "OpenXLA error page E1000; docs/message-formats.md",
		text: `RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.`,
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(52978421596), capacity: b(34359738368), exceeded: b(18618683228),
			advice: []string{"1.54×", "at least 2 devices", "donate_argnums", "XProf"}}},
	{name: "tpu-compile-hbm-used/errors_overview flattened breakdown", src: "docs/message-formats.md (E1000 earliest stub, errors_overview.md)",
		text: `XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G. Total hbm usage >= 49.34G: reserved 3.12M program unknown size arguments 49.34G`,
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(52978421596), capacity: b(34359738368), exceeded: b(18618683228),
			advice: []string{"over at least 2 devices"}}},
	{name: "tpu-compile-hbm-used/Enzyme-JAX code prefix", src: "https://github.com/EnzymeAD/Enzyme-JAX/pull/2422",
		text: `ERROR: LoadError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 215.17G of 31.25G hbm. Exceeded hbm capacity by 183.92G.`,
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(231037028270), capacity: b(33554432000), exceeded: b(197482596270),
			advice: []string{"6.89×", "at least 7 devices", "batch size"}}},
	{name: "tpu-compile-hbm-used/JaxRuntimeError a few % over", src: "docs/message-formats.md (public experiment notes)",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 31.91G of 31.25G hbm. Exceeded hbm capacity by 681.08M.`,
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(34263101604), capacity: b(33554432000), exceeded: b(714164142),
			advice: []string{"(2.1%) over", "--xla_tpu_rematerialization_algo=PEAK_PRIORITY", "--xla_tpu_max_hbm_size_mib=28800", "bfloat16"}}},
	{name: "tpu-compile-hbm-used/factory newline, no Exceeded", src: "docs/message-formats.md (public notes)",
		text: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:\nRan out of memory in memory space hbm. Used 32.08G of 31.25G hbm.",
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(34445637714), capacity: b(33554432000),
			advice: []string{"--xla_tpu_max_hbm_size_mib"}}},
	{name: "tpu-compile-hbm-used/jax#7502 old spelling + breakdown", src: "https://github.com/jax-ml/jax/issues/7502", file: "tpu-compile-hbm-used_jax7502_breakdown.txt",
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(68719476736), capacity: b(16621523436), exceeded: b(52097953300),
			advice: []string{"4.13×", "at least 5 devices", "largest allocations"}}},
	{name: "tpu-compile-hbm-used/EasyDeL#166 breakdown", src: "https://github.com/erfanzar/EasyDeL/issues/166", file: "tpu-compile-hbm-used_easydel166_breakdown.txt",
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(68504728371), capacity: b(33017561088), exceeded: b(35487167283),
			advice: []string{"2.07×", "at least 3 devices"}}},
	{name: "tpu-compile-hbm-used/LWM#60 headline wrapped before Exceeded", src: "https://github.com/LargeWorldModel/LWM/issues/60", file: "tpu-compile-hbm-used_lwm60_wrapped.txt",
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(23568633037), capacity: b(16621523436), exceeded: b(6947109601),
			advice: []string{"1.42×", "bfloat16"}}},
	{name: "tpu-compile-hbm-used/2019 TF Compilation failure", src: "docs/message-formats.md (2019 TF TPUEstimator)",
		text: `Compilation failure: Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm capacity by 25.74G.`,
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(44817983734), capacity: b(17179869184), exceeded: b(27638114550),
			advice: []string{"2.61×"}}},
	{name: "tpu-compile-hbm-used/vmem Used of (pytorch/xla#9524)", src: "https://github.com/pytorch/xla/issues/9524",
		text: `RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space vmem. Used 32.42M of 16.00M vmem. Exceeded vmem capacity by 16.42M`,
		want: want{code: "E1001", family: "tpu-compile-hbm-used", backend: "tpu", space: "vmem", used: b(33994834), capacity: b(16777216), exceeded: b(17217618),
			advice: []string{"vmem_limit_bytes=34603008", "--xla_tpu_scoped_vmem_limit_kib=33792", "block sizes"}}},
	{name: "tpu-compile-hbm-used/smem Used of (vllm#8318)", src: "https://github.com/vllm-project/vllm/issues/8318",
		text: `RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space smem. Used 1.00M of 1.00M smem. Exceeded smem capacity by 1.7K.`,
		want: want{code: "E1001", family: "tpu-compile-hbm-used", backend: "tpu", space: "smem", used: b(1048576), capacity: b(1048576), exceeded: b(1741),
			advice: []string{"SMEM holds scalars"}}},
	{name: "tpu-compile-hbm-used/JAX traceback with code and trailer", src: "composed: docs/message-formats.md (SimplifiedTraceback) + the code example of tpu-compile-hbm-used", file: "tpu-compile-hbm-used_jax_traceback.txt",
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(34263101604), capacity: b(33554432000), exceeded: b(714164142),
			advice: []string{"PEAK_PRIORITY"}}},
	{name: "tpu-compile-hbm-used/vLLM process tag on every line", src: "composed: headline per docs/message-formats.md + https://github.com/vllm-project/tpu-inference/pull/1882 breakdown", file: "tpu-compile-hbm-used_vllm_prefixed.txt",
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "hbm", used: b(108716359680), capacity: b(101737037824), exceeded: b(6979321856),
			advice: []string{"(6.9%) over"}}},

	// ---- tpu-compile-early-abort: early abort
	{name: "tpu-compile-early-abort/E1000 doc", src: "OpenXLA error page E1000",
		text: `RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely to have enough memory. Requires 3.84T, has 90.96G available. If more detailed logging is desired, set --xla_tpu_impure_oom_fast_exit_threshold=-1`,
		want: want{code: "E1000", family: "tpu-compile-early-abort", backend: "tpu", requested: b(4222124650660), free: b(97667556311), capacity: b(97667556311), cause: "exhaustion",
			advice: []string{"--xla_tpu_impure_oom_fast_exit_threshold=-1", "at least 44 devices"}}},
	{name: "tpu-compile-early-abort/jax#7822 3.47E", src: "https://github.com/jax-ml/jax/issues/7822",
		text: `Compilation failure: Aborting compilation early because it's unlikely to have enough memory. Requires 3.47E, has 14.49G available.`,
		want: want{code: "E1000", family: "tpu-compile-early-abort", backend: "tpu", requested: b(4000637620985759007), free: b(15558519030), capacity: b(15558519030), cause: "exhaustion",
			advice: []string{"--xla_tpu_impure_oom_fast_exit_threshold=-1"}}},

	// ---- tpu-compile-tensorcore-sparsecore-hbm: TensorCore + SparseCore HBM
	{name: "tpu-compile-tensorcore-sparsecore-hbm/E1000 doc", src: "docs/message-formats.md (error_1000.md, formerly E1002)",
		text: `RESOURCE_EXHAUSTED: TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, exceeding available bytes: 95.74G`,
		want: want{code: "E1000", family: "tpu-compile-tensorcore-sparsecore-hbm", backend: "tpu", space: "hbm", used: b(224326141870), capacity: b(102800042230),
			advice: []string{"--xla_sc_num_serialized_tables_to_optimize_hbm", "2.18×"}}},

	// ---- tpu-compile-allocation-exceeds-memory: allocation would exceed memory
	{name: "tpu-compile-allocation-exceeds-memory/oom_debugging TPU hbm", src: "OpenXLA guide 'Debug OOM errors with XProf'",
		text: `XlaRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=107374182400) would exceed memory (size=17179869184) :: #allocation7 [shape = 'u8[327680,327680]{1,0:T(8,128)(4,1)}', space=hbm, size = 0xffffffffffffffff, tag = 'output of xor_convert_fusion@{}'] :: <no-hlo-instruction>`,
		want: want{code: "E1000", family: "tpu-compile-allocation-exceeds-memory", backend: "tpu", space: "hbm", requested: b(107374182400), capacity: b(17179869184),
			advice: []string{"One allocation of 100.00 GiB", "sharded", "at least 7 devices"}}},
	{name: "tpu-compile-allocation-exceeds-memory/E1001 stub vmem", src: "docs/message-formats.md (error_1001.md stub)",
		text: `XlaRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=134217728) would exceed memory (size=67108864) :: #allocation25 [shape = 'u8[134217728]{0}', space=vmem, size = 0x8000000, tag = 'scoped memory for ragged_latency_optimized_all_gather_lhs_contracting_gated_matmul_kernel.2'] :: ragged_latency_optimized_all_gather_lhs_contracting_gated_matmul_kernel.2`,
		want: want{code: "E1001", family: "tpu-compile-allocation-exceeds-memory", backend: "tpu", space: "vmem", requested: b(134217728), capacity: b(67108864),
			advice: []string{"--xla_tpu_scoped_vmem_limit_kib=131072"}}},
	{name: "tpu-compile-allocation-exceeds-memory/jaxlib._jax elided descriptor", src: "docs/message-formats.md (2025 notes)",
		text: `jaxlib._jax.XlaRuntimeError: RESOURCE_EXHAUSTED: Allocation (size=38654705664) would exceed memory (size=34359738368) :: #allocation598 [...]`,
		want: want{code: "E1000", family: "tpu-compile-allocation-exceeds-memory", backend: "tpu", requested: b(38654705664), capacity: b(34359738368),
			advice: []string{"(12.5%) over"}}},
	{name: "tpu-compile-allocation-exceeds-memory/scoped descriptor", src: "composed: docs/message-formats.md (scoped variant)",
		text: `RESOURCE_EXHAUSTED: Allocation (size=33554432) would exceed memory (size=16777216) :: #allocation3 [shape = 'u8[33554432]{0}', space=vmem, scoped, tag = 'input window allocation for operator input 2. '] :: fusion.12`,
		want: want{code: "E1001", family: "tpu-compile-allocation-exceeds-memory", backend: "tpu", space: "vmem", requested: b(33554432), capacity: b(16777216),
			advice: []string{"vmem_limit_bytes=33554432"}}},

	// ---- tpu-compile-vmem-stack, tpu-compile-scoped-vmem: scoped VMEM
	{name: "tpu-compile-vmem-stack/E1001 doc", src: "docs/message-formats.md (error_1001.md)",
		text: `RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for %my-custom-kernel = bf16[2048,4096]{1,0:T(8,128)(2,1)} custom-call(...) ...`,
		want: want{code: "E1001", family: "tpu-compile-vmem-stack", backend: "tpu", space: "vmem", instr: "%my-custom-kernel",
			advice: []string{"%my-custom-kernel", "vmem_limit_bytes", "--xla_tpu_scoped_vmem_limit_kib"}}},
	{name: "tpu-compile-vmem-stack/measured on silicon, bare name + trailer", src: "docs/message-formats.md (test fixture 'measured on silicon')", file: "tpu-compile-vmem-stack_measured_on_silicon.txt",
		want: want{code: "E1001", family: "tpu-compile-vmem-stack", backend: "tpu", space: "vmem", instr: "%_fwd.1", requested: b(38010880), capacity: b(33554432), exceeded: b(4456448),
			advice: []string{"It needs 36.25 MiB of scoped vmem but the limit is 32.00 MiB", "vmem_limit_bytes=38797312", "--xla_tpu_scoped_vmem_limit_kib=37888"}}},
	{name: "tpu-compile-scoped-vmem/scoped allocation sentence", src: "docs/message-formats.md",
		text: `RESOURCE_EXHAUSTED: Scoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M.`,
		want: want{code: "E1001", family: "tpu-compile-scoped-vmem", backend: "tpu", space: "vmem", requested: b(38010880), capacity: b(33554432), exceeded: b(4456448),
			advice: []string{"--xla_tpu_scoped_vmem_limit_kib=37888"}}},

	// ---- tpu-runtime-buffer: TPU runtime buffer (E0100)
	{name: "tpu-runtime-buffer/E0100 doc", src: "OpenXLA error page E0100",
		text: `ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)`,
		want: want{code: "E0100", family: "tpu-runtime-buffer", backend: "tpu", space: "hbm", device: "0x0x1_HBM0", requested: b(8388608), free: b(6742344), cause: "exhaustion",
			advice: []string{"short by 1.57 MiB", "donate_argnums", "tpu_log_allocations_on_oom"}}},
	{name: "tpu-runtime-buffer/E0100 factory, wrapped", src: "docs/message-formats.md (public notes)", file: "tpu-runtime-buffer_E0100_factory_wrapped.txt",
		want: want{code: "E0100", family: "tpu-runtime-buffer", backend: "tpu", space: "hbm", device: "0x1x0_HBM0", requested: b(16777216), free: b(16221471), cause: "exhaustion",
			advice: []string{"tpu_log_allocations_on_oom"}}},
	{name: "tpu-runtime-buffer/pytorch/xla#8020 replica context", src: "https://github.com/pytorch/xla/issues/8020",
		text: `RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 196.00M. That was not possible. There are 134.44M free.; (1x0x0_HBM0): while running replica 0 and partition 0 of a replicated computation (other replicas may have failed as well).`,
		want: want{code: "E0100", family: "tpu-runtime-buffer", backend: "tpu", space: "hbm", device: "1x0x0_HBM0", requested: b(205520896), free: b(140970557), cause: "exhaustion", rp: "r0p0",
			advice: []string{"FSDP"}}},
	{name: "tpu-runtime-buffer/bare form", src: "docs/message-formats.md",
		text: `Attempting to allocate 180.59M. That was not possible. There are 142.58M free.; (0x3x0_HBM1)`,
		want: want{code: "E0100", family: "tpu-runtime-buffer", backend: "tpu", space: "hbm", device: "0x3x0_HBM1", requested: b(189362340), free: b(149505966), cause: "exhaustion",
			advice: []string{"tpu_log_allocations_on_oom"}}},
	{name: "tpu-runtime-buffer/Error loading program prefix", src: "docs/message-formats.md",
		text: `Error loading program: Attempting to allocate 1.28G. That was not possible. There are 785.61M free.; (0x0x0_HBM0)`,
		want: want{code: "E0100", family: "tpu-runtime-buffer", backend: "tpu", space: "hbm", device: "0x0x0_HBM0", requested: b(1374389535), free: b(823771791), cause: "exhaustion",
			advice: []string{"donate_argnums"}}},
	{name: "tpu-runtime-buffer/fragmentation", src: "composed: docs/message-formats.md grammar, free > requested",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 1.28G. That was not possible. There are 6.90G free.; (0x0x0_HBM0)`,
		want: want{code: "E0100", family: "tpu-runtime-buffer", backend: "tpu", space: "hbm", device: "0x0x0_HBM0", requested: b(1374389535), free: b(7408818586), cause: "fragmentation",
			advice: []string{"fragmented", "largest long-lived buffers", "re-create"}}},

	// ---- tpu-runtime-program-load: TPU runtime program load (E0101)
	{name: "tpu-runtime-program-load/E0101 doc", src: "OpenXLA error page E0101",
		text: `XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well).`,
		want: want{code: "E0101", family: "tpu-runtime-program-load", backend: "tpu", program: "jit_embedding_pipeline_step_fn", requested: b(31664646390), free: b(154811761), reserved: b(0), reservable: b(154811761),
			cause: "exhaustion", rp: "r0p34", advice: []string{"29.49 GiB", "tpu_shared_memory_percent", "fewer programs"}}},
	{name: "tpu-runtime-program-load/pytorch/xla#4847 fatal statusor", src: "https://github.com/pytorch/xla/issues/4847",
		text: `2023-04-08 11:22:09.148143: F tensorflow/tsl/platform/statusor.cc:33] Attempting to fetch value instead of handling error RESOURCE_EXHAUSTED: Error loading program: Attempting to reserve 7.04G at the bottom of memory. That was not possible. There are 6.90G free, 0B reserved, and 6.90G reservable.`,
		want: want{code: "E0101", family: "tpu-runtime-program-load", backend: "tpu", requested: b(7559142441), free: b(7408818586), reserved: b(0), reservable: b(7408818586),
			cause: "exhaustion", advice: []string{"tpu_shared_memory_percent"}}},
	{name: "tpu-runtime-program-load/XRT bare, fragmentation", src: "docs/message-formats.md",
		text: `RESOURCE_EXHAUSTED: Attempting to reserve 6.48G at the bottom of memory. That was not possible. There are 6.78G free, 0B reserved, and 3.33G reservable.`,
		want: want{code: "E0101", family: "tpu-runtime-program-load", backend: "tpu", requested: b(6957847020), free: b(7279969567), reserved: b(0), reservable: b(3575560274),
			cause: "fragmentation", advice: []string{"not in one piece"}}},
	{name: "tpu-runtime-program-load/XRT From /job + runtime breakdown", src: "composed: https://github.com/pytorch/xla/issues/1735 (headline and breakdown in docs/message-formats.md)", file: "tpu-runtime-program-load_xrt_breakdown.txt",
		want: want{code: "E0101", family: "tpu-runtime-program-load", backend: "tpu", space: "hbm", requested: b(4241280205), free: b(2061584302), reserved: b(0), reservable: b(2061584302), used: b(6532939776), capacity: b(8589934592),
			cause: "exhaustion", advice: []string{"tpu_shared_memory_percent"}}},
	{name: "tpu-runtime-program-load/transformers#22328 root errors, device=TPU:6", src: "composed: https://github.com/huggingface/transformers/issues/22328 (docs/message-formats.md)", file: "tpu-runtime-program-load_transformers22328_root_errors.txt",
		want: want{code: "E0101", family: "tpu-runtime-program-load", backend: "tpu", device: "TPU:6", requested: b(11285026570), free: b(6259914834), reserved: b(0), reservable: b(6259914834),
			cause: "exhaustion", advice: []string{"tpu_shared_memory_percent"}}},

	// ---- tpu-compile-sparsecore-offset: SparseCore (E3000)
	{name: "tpu-compile-sparsecore-offset/E3000 doc", src: "docs/message-formats.md (error_3000.md)",
		text: `INTERNAL:Failed to run pass pipeline. Hlo-Op: result.1:279:1: error: 'memref.alloca' op current allocation offset upper bound (140704 words) exceeds the legitimate user allocatable offset upper bound (131071 words) in memory space 201 when allocating 23440 words. ...`,
		want: want{code: "E3000", family: "tpu-compile-sparsecore-offset", backend: "tpu", space: "tilespmem", words: SparseCoreWords{Offset: 140704, Limit: 131071, Requested: 23440},
			advice: []string{"over by 9633 words", "--xla_sc_dump_mlir_to", "scratch_shapes", "collective_offload_all_gather=false"}}},
	{name: "tpu-compile-sparsecore-offset/SparseCore HBM space", src: "composed: docs/message-formats.md E3000 grammar, space 203",
		text: `RESOURCE_EXHAUSTED: 'memref.alloca' op current allocation offset upper bound (9000000 words) exceeds the legitimate user allocatable offset upper bound (8388607 words) in memory space 203 when allocating 1048576 words.`,
		want: want{code: "E3000", family: "tpu-compile-sparsecore-offset", backend: "tpu", space: "hbm", words: SparseCoreWords{Offset: 9000000, Limit: 8388607, Requested: 1048576},
			advice: []string{"max_ids_per_partition"}}},

	// ---- gpu-allocator-status: GPU BFC / TF allocator adapter
	{name: "gpu-allocator-status/oom_debugging GPU", src: "OpenXLA guide 'Debug OOM errors with XProf'",
		text: `XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 214748364800 bytes.`,
		want: want{code: "E0007", family: "gpu-allocator-status", requested: b(214748364800), advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE=false"}}},
	{name: "gpu-allocator-status/alphafold BFC warning then status", src: "https://github.com/google-deepmind/alphafold/issues/184 (docs/message-formats.md)", file: "gpu-allocator-status_alphafold_bfc_then_status.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", requested: b(2110783616), rp: "r0",
			advice: []string{"Peak buffers", "XLA_PYTHON_CLIENT_MEM_FRACTION"}}},
	{name: "gpu-allocator-status/jax#13428 BufferAssignment dump", src: "https://github.com/jax-ml/jax/issues/13428", file: "gpu-allocator-status_jax13428_bufferassignment.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", requested: b(6291456), advice: []string{"Peak buffers"}}},
	{name: "gpu-allocator-status/2025 payload", src: "docs/message-formats.md (public notes)",
		text: `E0314 21:29:02.854727  957629 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4831838208 bytes. [tf-allocator-allocation-error='']`,
		want: want{code: "E0007", family: "gpu-allocator-status", requested: b(4831838208), rp: "r0", advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}}},
	{name: "gpu-allocator-status/TSL size + executable_name", src: "docs/message-formats.md newer variant",
		text: `RESOURCE_EXHAUSTED: Out of memory while trying to allocate 12.50GiB. [executable_name='jit_semantic_fused_w2_backward_pallas'] [tf-allocator-allocation-error='']`,
		want: want{code: "E0007", family: "gpu-allocator-status", program: "jit_semantic_fused_w2_backward_pallas", requested: b(13421772800), advice: []string{"donate_argnums"}}},
	{name: "gpu-allocator-status/payload order varies", src: "docs/message-formats.md newer variant",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 20.71GiB. [tf-allocator-allocation-error=''] [executable_name='jit_train_step']`,
		want: want{code: "E0007", family: "gpu-allocator-status", program: "jit_train_step", requested: b(22237193175), advice: []string{"jax.checkpoint"}}},
	{name: "gpu-allocator-status/with allocator, wrapped", src: "docs/message-formats.md newer variant",
		text: "JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.95GiB\nwith allocator GPU_0_bfc on device 0.\n[executable_name='jit_greater'] [tf-allocator-allocation-error='']",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", program: "jit_greater", requested: b(2093796557), advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}}},
	{name: "gpu-allocator-status/with allocator one line", src: "docs/message-formats.md newer variant",
		text: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 896.00MiB with allocator GPU_0_bfc on device 0.\n[executable_name='jit_initialize_state']",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", program: "jit_initialize_state", requested: b(939524096), advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}}},
	{name: "gpu-allocator-status/jax#788 old local client, wrapped 'Out \\nof'", src: "https://github.com/jax-ml/jax/issues/788",
		text: "E external/org_tensorflow/tensorflow/compiler/xla/python/local_client.cc:672] Execution of replica 0 failed: Resource exhausted: Out \nof memory while trying to allocate 5520758552 bytes.",
		want: want{code: "E0007", family: "gpu-allocator-status", requested: b(5520758552), rp: "r0", advice: []string{"XLA_PYTHON_CLIENT_PREALLOCATE=false"}}},
	{name: "gpu-allocator-status/alphafold nested headers", src: "https://github.com/google-deepmind/alphafold/issues/184 (docs/message-formats.md)",
		text: `I0922 09:49:00.854184 140053800166976 run_docker.py:193] 2021-09-22 16:49:00.853879: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/pjrt_stream_executor_client.cc:2040] Execution of replica 0 failed: Resource exhausted: Out of memory while trying to allocate 48803099744 bytes.`,
		want: want{code: "E0007", family: "gpu-allocator-status", requested: b(48803099744), rp: "r0", advice: []string{"donate_argnums"}}},
	{name: "gpu-allocator-status/TF root errors (DeepLearningExamples#405)", src: "https://github.com/NVIDIA/DeepLearningExamples/issues/405", file: "gpu-allocator-status_tf_root_errors.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", requested: b(68852648264), advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}}},
	{name: "gpu-allocator-status/host memory", src: "composed: docs/message-formats.md template 'Out of [host ]memory'",
		text: `RESOURCE_EXHAUSTED: Out of host memory while trying to allocate 268435456 bytes.`,
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "cpu", space: "host", requested: b(268435456), advice: []string{"pinned host memory"}}},

	// ---- gpu-platform-allocator: GPU platform allocator
	{name: "gpu-platform-allocator/ROCm driver line then status", src: "https://github.com/ROCm/legacy-rocm-build/issues/3364", file: "gpu-platform-allocator_rocm_driver_then_status.txt",
		want: want{code: "E0007", family: "gpu-platform-allocator", backend: "gpu", device: "0", requested: b(165425291480), rp: "r0", advice: []string{"Peak buffers"}}},
	{name: "gpu-platform-allocator/mesh-transformer-jax#66 old spelling", src: "https://github.com/kingoflolz/mesh-transformer-jax/issues/66",
		text: `RuntimeError: Resource exhausted: Failed to allocate request for 32.00MiB (33554432B) on device ordinal 0`,
		want: want{code: "E0007", family: "gpu-platform-allocator", backend: "gpu", device: "0", requested: b(33554432), advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}}},
	{name: "gpu-platform-allocator/bare", src: "docs/message-formats.md",
		text: `Failed to allocate request for 154.06GiB (165425291480B) on device ordinal 0`,
		want: want{code: "E0007", family: "gpu-platform-allocator", backend: "gpu", device: "0", requested: b(165425291480), advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}}},

	{name: "gpu-platform-allocator/old PyLocalClient 'areplicated'", src: "composed: docs/message-formats.md (old PyLocalClient context text) around the J headline",
		text: `RuntimeError: Resource exhausted: Failed to allocate request for 1.00GiB (1073741824B) on device ordinal 0: while running replica 0 and partition 1 of areplicated computation (other replicas may have failed as well).`,
		want: want{code: "E0007", family: "gpu-platform-allocator", backend: "gpu", device: "0", requested: b(1073741824), rp: "r0p1", advice: []string{"donate_argnums"}}},

	// ---- gpu-bfc-allocator: BFC warning alone
	{name: "gpu-bfc-allocator/BFC warning alone", src: "docs/message-formats.md (public notes)",
		text: `W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.50GiB (rounded to 4831838208)requested by op `,
		want: want{code: "E0007", family: "gpu-bfc-allocator", backend: "gpu", device: "0", requested: b(4831838208), advice: []string{"TF_GPU_ALLOCATOR=cuda_malloc_async"}}},
	{name: "gpu-bfc-allocator/current head with hint and dump", src: "docs/message-formats.md current head template", file: "gpu-bfc-allocator_head_fragmentation_hint.txt",
		want: want{code: "E0007", family: "gpu-bfc-allocator", backend: "gpu", device: "0", requested: b(1073741824), advice: []string{"cuda_malloc_async"}}},

	// ---- gpu-cuda-async-allocator: cudaMallocAsync
	{name: "gpu-cuda-async-allocator/SkyRL#624 free/total", src: "https://github.com/NovaSky-AI/SkyRL/issues/624", file: "gpu-cuda-async-allocator_skyrl624.txt",
		want: want{code: "E0007", family: "gpu-cuda-async-allocator", backend: "gpu", device: "1", requested: b(1225195446464), free: b(22635544576), used: b(59312611328), capacity: b(85095874560), cause: "exhaustion",
			advice: []string{"larger than the whole device", "only 21.08 GiB is free"}}},

	{name: "gpu-cuda-async-allocator/fragmentation", src: "composed: docs/message-formats.md template, free > requested",
		text: "E1103 18:23:55.103160 3413767 gpu_cudamallocasync_allocator.cc:361] gpu_async_0 cuMemAllocAsync failed to allocate 1073741824 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n Reported by CUDA: Free memory/Total memory: 2147483648/85095874560",
		want: want{code: "E0007", family: "gpu-cuda-async-allocator", backend: "gpu", device: "0", requested: b(1073741824), free: b(2147483648), capacity: b(85095874560), cause: "fragmentation",
			advice: []string{"fragmented", "XLA_PYTHON_CLIENT_ALLOCATOR=platform", "TF_GPU_ALLOCATOR=cuda_malloc_async"}}},

	// ---- gpu-driver-status: the driver's own status, raised
	{name: "gpu-driver-status/pool set-up gave up, real H100 job", src: "testdata/jobs/two_jobs_second.log (device capture: two JAX jobs on one GPU)",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory [executable_name='jit_broadcast_in_dim']`,
		want: want{code: "E0007", family: "gpu-driver-status", category: "GPU Driver: Memory Pool Allocation Failure", backend: "gpu", program: "jit_broadcast_in_dim",
			advice: []string{"refused XLA's memory pool", "nvidia-smi"}}},

	// ---- gpu-driver-alloc-status: a driver refusal returned as the status (the
	// same words on a log line are an attempt, attempts_test.go)
	{name: "gpu-driver-alloc-status/ROCm INTERNAL", src: "xla/stream_executor/rocm/rocm_executor.cc template (coverage table)",
		text: `jax.errors.JaxRuntimeError: INTERNAL: failed to allocate 165425291480 bytes from device: hipErrorOutOfMemory`,
		want: want{code: "E0007", family: "gpu-driver-alloc-status", backend: "gpu", requested: b(165425291480)}},

	// ---- cpu-runtime: CPU
	{name: "cpu-runtime/CPU JaxRuntimeError", src: "docs/message-formats.md (public notes)",
		text: `jax.errors.JaxRuntimeError: Out of memory allocating 41246000000 bytes`,
		want: want{code: "E0007", family: "cpu-runtime", backend: "cpu", requested: b(41246000000), advice: []string{"host ran out of RAM", "cgroup"}}},
	{name: "cpu-runtime/CPU status", src: "docs/message-formats.md template",
		text: `RESOURCE_EXHAUSTED: Out of memory allocating 1,073,741,824 bytes.`,
		want: want{code: "E0007", family: "cpu-runtime", backend: "cpu", requested: b(1073741824), advice: []string{"host ran out of RAM"}}},
	{name: "cpu-runtime-host-buffer/aligned host memory", src: "xla/stream_executor/host/host_executor.cc template (coverage table), realistic value",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 268435456 bytes of aligned host memory`,
		want: want{code: "E0007", family: "cpu-runtime-host-buffer", space: "host", requested: b(268435456), advice: []string{"host ran out of RAM"}}},

	// ---- Templates of the 2026 XLA and jaxlib source (coverage table), realistic values
	{name: "cpu-runtime-staging-buffer/staging", src: "xla/pjrt/se/pjrt_stream_executor_client.cc template (coverage table)",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate staging buffer of size 268435456`,
		want: want{code: "E0007", family: "cpu-runtime-staging-buffer", space: "host", requested: b(268435456), advice: []string{"host ran out of RAM"}}},
	{name: "gpu-collective-memory/MORI", src: "xla/backends/gpu/collectives/mori_collectives.cc template (coverage table)",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from MORI memory`,
		want: want{code: "E0007", family: "gpu-collective-memory", backend: "gpu", requested: b(1073741824), advice: []string{"Collective buffers"}}},
	{name: "gpu-vmm-allocator/PA budget", src: "xla/stream_executor/device_address_vmm_allocator.cc template (coverage table)",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Not enough PA budget: pa_allocated=79456894976B, allocation_size=1073741824B, pa_budget=80000000000B`,
		want: want{code: "E0007", family: "gpu-vmm-allocator", backend: "gpu", requested: b(1073741824), used: b(79456894976)}},
	{name: "gpu-sycl-device-alloc/DeviceAllocate", src: "xla/stream_executor/sycl/sycl_executor.cc template (coverage table)",
		text: `E0822 14:03:11.512345  181818 sycl_executor.cc:328] DeviceAllocate: Failed to allocate device memory of size 17179869184, got RESOURCE_EXHAUSTED: SyclMallocDevice: Failed to allocate device memory: out of device memory`,
		want: want{code: "E0007", family: "gpu-sycl-device-alloc", backend: "gpu", requested: b(17179869184)}},
	{name: "gpu-allocator-status/executable_name payload", src: "xla/stream_executor/integrations/tf_allocator_adapter.cc template with the 2026 executable_name payload (coverage table)",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.50GiB with allocator GPU_0_bfc on device 0. [executable_name='jit_train_step']`,
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", program: "jit_train_step", requested: b(1610612736)}},
	{name: "gpu-bfc-allocator-tf1/TF 0.8-1.0", src: "tensorflow/core/common_runtime/bfc_allocator.cc template of TF 0.8-1.0 (coverage table)",
		text: `W tensorflow/core/common_runtime/bfc_allocator.cc:268] Ran out of memory trying to allocate 1.00GiB.  See logs for memory state.`,
		want: want{code: "E0007", family: "gpu-bfc-allocator-tf1", backend: "gpu", requested: b(1073741824)}},
	{name: "tensorflow-op-gpu-scratch/MatMul", src: "tensorflow/core/common_runtime/gpu/gpu_device.cc template of TF 1.2+ (coverage table)",
		text: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: Ran out of GPU memory when allocating 1073741824 bytes for MatMul`,
		want: want{code: "E0007", family: "tensorflow-op-gpu-scratch", backend: "gpu", instr: "MatMul", requested: b(1073741824), category: categoryTensorFlow}},
	{name: "tensorflow-gpu-eigen-allocator/gpu_device", src: "tensorflow/core/common_runtime/gpu/gpu_device.cc template (coverage table)",
		text: `F tensorflow/core/common_runtime/gpu/gpu_device.cc:132] EigenAllocator for GPU ran out of memory when allocating 1073741824. See error logs for more detailed info.`,
		want: want{code: "E0007", family: "tensorflow-gpu-eigen-allocator", backend: "gpu", requested: b(1073741824), category: categoryTensorFlow}},
	{name: "gpu-stream-executor-limit/stream_executor.h", src: "xla/stream_executor/stream_executor.h template (coverage table)",
		text: `W0822 14:03:11.512345  181818 stream_executor.h:442] Not enough memory to allocate 1073741824 on device 0 within provided limit. limit=4294967296]`,
		want: want{code: "E0007", family: "gpu-stream-executor-limit", device: "0", requested: b(1073741824)}},
	{name: "gpu-jaxlib-workspace/syevd", src: "jaxlib/gpu/solver_kernels_ffi.cc template (coverage table)",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Unable to allocate device workspace for syevd`,
		want: want{code: "E0007", family: "gpu-jaxlib-workspace", backend: "gpu", instr: "syevd"}},

	// ---- Real captures: jax 0.11.2 on an NVIDIA H100 80GB, copied verbatim from
	// testdata/real (see its README). Every stderr record holds the allocator's
	// exact figure, which replaces the exception's rounded "93.13GiB".
	{name: "real/device_put BFC", src: "testdata/real/device_put.stderr.txt (device capture)", capture: "device_put.stderr.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", requested: b(100000000000), free: b(63758789509),
			cause: "exhaustion", advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}, used: b(0)}},
	{name: "real/platform allocator jit", src: "testdata/real/platform_jit.stderr.txt (device capture)", capture: "platform_jit.stderr.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", program: "jit_temps_exceed_memory", requested: b(180007500304), advice: []string{"donate_argnums"}}},
	{name: "real/platform allocator, exception only", src: "testdata/real/platform_device_put.exception.txt (device capture)", capture: "platform_device_put.exception.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", requested: b(99997576069), advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION"}}},
	{name: "real/cuda_async jit", src: "testdata/real/cuda_async_jit.stderr.txt (device capture)", capture: "cuda_async_jit.stderr.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", program: "jit_temps_exceed_memory", requested: b(180007500304), free: b(20676018176), used: b(1000038), capacity: b(85017493504),
			cause: "exhaustion", advice: []string{"larger than the whole device (79.18 GiB;"}}},
	{name: "real/autotuner starved (compile time)", src: "testdata/real/autotune_starved.stderr.txt (device capture)", capture: "autotune_starved.stderr.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", phase: PhaseCompile, backend: "gpu", device: "0", requested: b(33554432), advice: []string{"--xla_gpu_autotune_level=0"}}},
	{name: "real/autotuner exception line alone", src: "testdata/real/autotune_starved.stderr.txt line 97 (device capture)",
		text: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to get configs for: 3 out of 3 instructions. See logs for all failures. Example failure: ",
		want: want{code: "E0007", family: "gpu-compile-autotuner", phase: PhaseCompile, advice: []string{"--xla_gpu_autotune_level=0"}}},
	{name: "real/autotuner per-instruction status", src: "testdata/real/autotune_starved.stderr.txt lines 16-26 (device capture)",
		text: "E1122 10:54:45.401850    2426 config_assigner.cc:536] Could not get config for HLO: %input_reduce_fusion.1 = f32[2048]{0} fusion(%gemm_fusion_dot_general.1), kind=kInput, calls=\n%fused_reduce {\n}, metadata={op_name=\"jit(<lambda>)/reduce_sum\" stack_frame_id=6}. Status: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 32.00MiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error='']",
		want: want{code: "E0007", family: "gpu-allocator-status", phase: PhaseCompile, backend: "gpu", device: "0", requested: b(33554432), advice: []string{"--xla_gpu_autotune_level=0"}}},
	{name: "real/fragmented small pool", src: "testdata/real/mem_fraction_fragmented.stderr.txt (device capture)", capture: "mem_fraction_fragmented.stderr.txt",
		want: want{code: "E0007", family: "gpu-allocator-status", backend: "gpu", device: "0", program: "jit_broadcast_in_dim", requested: b(1610612736), free: b(2104533975),
			cause: "fragmentation", advice: []string{"fragmented"}, used: b(2147483648)}},

	// ---- code-only: a catalog code with no readable message
	{name: "code-only/truncated code-only status", src: "composed: docs/message-formats.md factory format, message cut off",
		text: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:",
		want: want{code: "E1000", family: "code-only", advice: []string{"donate_argnums", "XProf"}}},
	{name: "code-only/a printed code wins", src: "composed: docs/message-formats.md (code printed with a vmem headline)",
		text: "RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: Ran out of memory in memory space vmem. Used 32.42M of 16.00M vmem.",
		want: want{code: "E1000", family: "tpu-compile-hbm-used", backend: "tpu", space: "vmem", used: b(33994834), capacity: b(16777216), advice: []string{"2.03×"}}},
	{name: "code-only/old #e1000 URL", src: "composed: docs/message-formats.md earlier header",
		text: "RESOURCE_EXHAUSTED: E1001: CompileTimeScopedVmemOom:\nScoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M.\nhttps://openxla.org/xla/errors#e1001",
		want: want{code: "E1001", family: "tpu-compile-scoped-vmem", backend: "tpu", space: "vmem", requested: b(38010880), capacity: b(33554432), exceeded: b(4456448), advice: []string{"vmem_limit_bytes"}}},

	// ---- Families of the widened recognition: one fixture each (their
	// example); recognition_classes_test.go holds every class's variants.
	{name: "no sizes/vmem please file a bug", src: "jax-ml/jax issue threads (Pallas TPU kernels)",
		text: `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem. It should not be possible to run out of vmem - please file a bug against XLA.`,
		want: want{code: "E1001", family: "tpu-compile-out-of-memory-no-sizes", backend: "tpu", space: "vmem", advice: []string{"compiler bug"}}},
	{name: "program load/Fatal error", src: "PyTorch/XLA TPU issue threads",
		text: `RuntimeError: RESOURCE_EXHAUSTED: Error loading program: Fatal error`,
		want: want{code: "E0101", family: "tpu-runtime-program-load-fatal", backend: "tpu", advice: []string{"tpu_shared_memory_percent"}}},
	{name: "driver/kernel launch", src: "xla/stream_executor/cuda/cuda_driver.cc (2022) LaunchKernel",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch CUDA kernel: fusion_12 with block dimensions: 128x1x1 and grid dimensions: 2048x1x1: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: "gpu-driver-kernel-launch", category: "GPU Driver: Kernel Launch Out of Memory", backend: "gpu", instr: "fusion_12",
			advice: []string{"XLA_PYTHON_CLIENT_MEM_FRACTION", "nvidia-smi"}}},
	{name: "driver/command buffer instantiation", src: "xla/stream_executor/gpu/gpu_command_buffer.cc + cuda/cuda_command_buffer.cc (2025+): the status JAX raises",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Underlying backend ran out of memory trying to instantiate command buffer with 37 (total of 2 alive graphs in the process). You can try to (a) Give more memory to the driver by reducing XLA_CLIENT_MEM_FRACTION (b) Disable command buffers with 'XLA_FLAGS=--xla_gpu_enable_command_buffer=' (empty set). Original error: Failed to instantiate CUDA graph: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: "gpu-runtime-command-buffer", category: "GPU Runtime: Command Buffer Instantiation Out of Memory", backend: "gpu",
			advice: []string{"--xla_gpu_enable_command_buffer=", "XLA_PYTHON_CLIENT_MEM_FRACTION"}}},
	{name: "driver/module load", src: "xla/stream_executor/cuda/cuda_executor.cc (2025+) LoadCubin",
		text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: [0] Failed to load in-memory CUBIN (compiled for a different GPU?).: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: "gpu-driver-module-load", category: "GPU Driver: Module Load Out of Memory", backend: "gpu", device: "0",
			advice: []string{"XLA_PYTHON_CLIENT_PREALLOCATE=false"}}},
	{name: "driver/context creation", src: "https://github.com/jax-ml/jax/issues/10830",
		text: `E0413 10:22:33.123456 1234 cuda_driver.cc:268] failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 34089730048`,
		want: want{code: "E0007", family: "gpu-driver-context-init", category: "GPU Driver: Device Initialization Out of Memory", backend: "gpu", capacity: b(34089730048),
			advice: []string{"another process"}}},
	{name: "driver/unified memory", src: "xla/stream_executor/cuda/cuda_unified_allocator.cc (2025+)",
		text: `INTERNAL: [0] Failed to allocate 2.00GiB (2147483648 bytes) of unified memory: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: "gpu-driver-unified-memory", category: "GPU Driver: Unified Memory Allocation Failure", backend: "gpu", device: "0", requested: b(2147483648),
			advice: []string{"unified (managed) memory"}}},
	{name: "driver/unified memory log line", src: "xla/stream_executor/cuda/cuda_driver.cc (2024) UnifiedMemoryAllocate",
		text: `E0101 09:00:00.000000 4242 cuda_driver.cc:1231] failed to alloc 2147483648 bytes unified memory; result: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		want: want{code: "E0007", family: "gpu-driver-unified-memory-log", category: "GPU Driver: Unified Memory Allocation Failure", backend: "gpu", requested: b(2147483648)}},
	{name: "driver/new constant", src: "xla/stream_executor/cuda/cuda_executor.cc CreateOrShareConstant",
		text: `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to allocate 1048576 bytes for new constant`,
		want: want{code: "E0007", family: "gpu-runtime-constant-allocation", category: "GPU Runtime: Constant Allocation Failure", backend: "gpu", requested: b(1048576),
			advice: []string{"closing over"}}},
	{name: "tensorflow/eager Conv2D", src: "https://github.com/hotosm/fAIr/issues/59 (shape, type, device); eager [Op:] suffix",
		text: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:Conv2D]`,
		want: want{code: "E0007", family: "tensorflow-op-tensor-allocation", category: "TensorFlow Op: Tensor Allocation Failure", backend: "gpu", device: "0", instr: "Conv2D",
			requested: b(16777216), advice: []string{"report_tensor_allocations_upon_oom"}}},
	{name: "tensorflow/failed to allocate memory", src: "TF eager error with its [Op:] suffix",
		text: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: failed to allocate memory [Op:AddV2]`,
		want: want{code: "E0007", family: "tensorflow-op-allocation-failed", category: "TensorFlow Op: Tensor Allocation Failure", instr: "AddV2",
			advice: []string{"report_tensor_allocations_upon_oom"}}},
}

func TestFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			text := f.body(t)
			if !MayContain(text) {
				t.Errorf("MayContain = false")
			}
			r, ok := Recognize(text)
			if !ok {
				t.Fatalf("not recognised")
			}
			checkReport(t, r, f.want)
		})
	}
}

func checkReport(t *testing.T, r Report, w want) {
	t.Helper()
	cw, ok := catalogWant[w.code]
	if !ok {
		t.Fatalf("bad fixture code %q", w.code)
	}
	eq := func(field, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	eq("Code", r.Code, w.code)
	eq("Name", r.Name, cw.name)
	category := cw.category
	if w.category != "" {
		category = w.category
	}
	eq("Category", r.Category, category)
	phase := cw.phase
	if w.phase != "" {
		phase = w.phase
	}
	eq("Phase", r.Phase, phase)
	eq("DocURL", r.DocURL, cw.doc)
	eq("Family", r.Family, w.family)
	eq("Backend", r.Backend, w.backend)
	eq("MemorySpace", r.MemorySpace, w.space)
	eq("Program", r.Program, w.program)
	eq("Device", r.Device, w.device)
	eq("Cause", r.Cause, w.cause)
	eq("Instruction", r.Instruction, w.instr)
	got, exp := reportSizes(r), w.sizes()
	for i, name := range sizeNames {
		if got[i] != exp[i] {
			t.Errorf("%s = %+v, want %+v", name, got[i], exp[i])
		}
	}
	eq("replica/partition", rpString(r), w.rp)
	if r.Words != w.words {
		t.Errorf("Words = %+v, want %+v", r.Words, w.words)
	}
	if len(r.Remediation) == 0 {
		t.Fatalf("no remediation")
	}
	all := strings.Join(r.Remediation, "\n")
	for _, a := range w.advice {
		if !strings.Contains(all, a) {
			t.Errorf("remediation lacks %q:\n%s", a, all)
		}
	}
	for i, step := range r.Remediation {
		if strings.TrimSpace(step) == "" {
			t.Errorf("remediation step %d is empty", i)
		}
	}
}

func rpString(r Report) string {
	s := ""
	if r.HasReplica {
		s += "r" + strconv.FormatInt(r.Replica, 10)
	}
	if r.HasPartition {
		s += "p" + strconv.FormatInt(r.Partition, 10)
	}
	return s
}
