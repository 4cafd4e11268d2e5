// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"math"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

func b(n int64) grammar.Size { return grammar.KnownSize(n) }

// finishCases are real messages with the fields their family reads (sizes
// in bytes, base 1024), and what Finish derives from them.
var finishCases = []struct {
	name, text string
	read       grammar.Report // what the family read
	traits     grammar.AdviceTraits
	action     string
	retry      string
	fit        float64  // capacity / demand, 0 when none
	advice     []string // in the steps, in order
}{
	{"E1000 doc: 49.34G of 32.00G",
		`RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.`,
		grammar.Report{Code: grammar.CodeHbm, Backend: grammar.BackendTPU, MemorySpace: "hbm", Used: b(52978421596), Capacity: b(34359738368), Exceeded: b(18618683228)},
		grammar.AdviceTraits{}, grammar.ActionShrinkFootprint, RetryFutile, 32.00 / 49.34,
		[]string{"1.54×", "at least 2 devices", "donate_argnums", "XProf"}},
	{"E1000 a few % over: 31.91G of 31.25G",
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 31.91G of 31.25G hbm. Exceeded hbm capacity by 681.08M.`,
		grammar.Report{Code: grammar.CodeHbm, Backend: grammar.BackendTPU, MemorySpace: "hbm", Used: b(34263101604), Capacity: b(33554432000), Exceeded: b(714164142)},
		grammar.AdviceTraits{}, grammar.ActionRematerialize, RetryFutile, 31.25 / 31.91,
		[]string{"(2.1%) over", "--xla_tpu_rematerialization_algo=PEAK_PRIORITY", "--xla_tpu_max_hbm_size_mib=28800", "bfloat16"}},
	{"early abort: 3.84T, 90.96G available",
		`RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely to have enough memory. Requires 3.84T, has 90.96G available. If more detailed logging is desired, set --xla_tpu_impure_oom_fast_exit_threshold=-1`,
		grammar.Report{Code: grammar.CodeHbm, Backend: grammar.BackendTPU, Requested: b(4222124650660), Free: b(97667556311), Capacity: b(97667556311)},
		grammar.AdviceTraits{}, grammar.ActionShard, RetryFutile, 90.96 / (3.84 * 1024),
		[]string{"at least 44 devices"}},
	{"vmem Used of (pytorch/xla#9524)",
		`RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space vmem. Used 32.42M of 16.00M vmem. Exceeded vmem capacity by 16.42M`,
		grammar.Report{Code: grammar.CodeVmem, Backend: grammar.BackendTPU, MemorySpace: "vmem", Used: b(33994834), Capacity: b(16777216), Exceeded: b(17217618)},
		grammar.AdviceTraits{}, grammar.ActionRetileKernel, RetryFutile, 0,
		[]string{"block sizes", "vmem_limit_bytes=34603008", "--xla_tpu_scoped_vmem_limit_kib=33792"}},
	{"smem (vllm#8318)",
		`RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space smem. Used 1.00M of 1.00M smem. Exceeded smem capacity by 1.7K.`,
		grammar.Report{Code: grammar.CodeVmem, Backend: grammar.BackendTPU, MemorySpace: "smem", Used: b(1048576), Capacity: b(1048576), Exceeded: b(1741)},
		grammar.AdviceTraits{}, grammar.ActionRetileKernel, RetryFutile, 0,
		[]string{"SMEM holds scalars"}},
	{"scoped allocation: 36.25M, limit 32.00M",
		`RESOURCE_EXHAUSTED: Scoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M.`,
		grammar.Report{Code: grammar.CodeVmem, Backend: grammar.BackendTPU, MemorySpace: "vmem", Requested: b(38010880), Capacity: b(33554432), Exceeded: b(4456448)},
		grammar.AdviceTraits{}, grammar.ActionRetileKernel, RetryFutile, 32.00 / 36.25, // the request over the limit
		[]string{"It needs 36.25 MiB of scoped vmem but the limit is 32.00 MiB", "--xla_tpu_scoped_vmem_limit_kib=37888"}},
	{"E0100 doc: 8.00M, 6.43M free",
		`ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)`,
		grammar.Report{Code: grammar.CodeBuffer, Backend: grammar.BackendTPU, Device: "0x0x1_HBM0", Requested: b(8388608), Free: b(6742344)},
		grammar.AdviceTraits{}, grammar.ActionShrinkFootprint, RetryUnknown, 0,
		[]string{"short by 1.57 MiB", "donate_argnums", "tpu_log_allocations_on_oom"}},
	{"E0100, fragmented: 1.28G, 6.90G free",
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 1.28G. That was not possible. There are 6.90G free.; (0x0x0_HBM0)`,
		grammar.Report{Code: grammar.CodeBuffer, Backend: grammar.BackendTPU, Device: "0x0x0_HBM0", Requested: b(1374389535), Free: b(7408818586)},
		grammar.AdviceTraits{}, grammar.ActionReleaseBuffers, RetryMayHelp, 0,
		[]string{"fragmented", "re-create", "largest long-lived buffers"}},
	{"E0101 doc: reserve 29.49G",
		`XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well).`,
		grammar.Report{Code: grammar.CodeProgram, Backend: grammar.BackendTPU, Program: "jit_embedding_pipeline_step_fn", Requested: b(31664646390), Free: b(154811761), Reserved: b(0), Reservable: b(154811761)},
		grammar.AdviceTraits{}, grammar.ActionShrinkFootprint, RetryUnknown, 0,
		[]string{"29.49 GiB", "tpu_shared_memory_percent", "fewer programs"}},
	{"E0101 fragmented: 6.48G, 6.78G free",
		`RESOURCE_EXHAUSTED: Attempting to reserve 6.48G at the bottom of memory. That was not possible. There are 6.78G free, 0B reserved, and 3.33G reservable.`,
		grammar.Report{Code: grammar.CodeProgram, Backend: grammar.BackendTPU, Requested: b(6957847020), Free: b(7279969567), Reserved: b(0), Reservable: b(3575560274)},
		grammar.AdviceTraits{}, grammar.ActionReleaseBuffers, RetryMayHelp, 0,
		[]string{"not in one piece"}},
	{"E3000 doc: 140704 of 131071 words",
		`INTERNAL:Failed to run pass pipeline. Hlo-Op: result.1:279:1: error: 'memref.alloca' op current allocation offset upper bound (140704 words) exceeds the legitimate user allocatable offset upper bound (131071 words) in memory space 201 when allocating 23440 words. ...`,
		grammar.Report{Code: grammar.CodeSparseCore, Backend: grammar.BackendTPU, MemorySpace: "tilespmem", Words: grammar.SparseCoreWords{Offset: 140704, Limit: 131071, Requested: 23440}},
		grammar.AdviceTraits{}, grammar.ActionInvestigate, RetryFutile, 0,
		[]string{"over by 9633 words", "--xla_sc_dump_mlir_to", "scratch_shapes", "collective_offload_all_gather=false"}},
	{"GPU status: 200 GiB requested",
		`XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 214748364800 bytes.`,
		grammar.Report{Code: grammar.CodeGeneric, Requested: b(214748364800)},
		grammar.AdviceTraits{}, grammar.ActionShrinkFootprint, RetryUnknown, 0,
		[]string{"XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE=false"}},
	{"host memory status",
		`RESOURCE_EXHAUSTED: Out of host memory while trying to allocate 268435456 bytes.`,
		grammar.Report{Code: grammar.CodeGeneric, MemorySpace: "host", Requested: b(268435456)},
		grammar.AdviceTraits{}, grammar.ActionReduceHostMemory, RetryUnknown, 0,
		[]string{"pinned host memory"}},
	{"CPU runtime out of host RAM",
		`jax.errors.JaxRuntimeError: Out of memory allocating 41246000000 bytes`,
		grammar.Report{Code: grammar.CodeGeneric, Backend: grammar.BackendCPU, Requested: b(41246000000)},
		grammar.AdviceTraits{HostRAM: true}, grammar.ActionReduceHostMemory, RetryUnknown, 0,
		[]string{"38.41 GiB"}},
	{"last resort: solver workspace",
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Unable to allocate device workspace for syevd`,
		grammar.Report{Code: grammar.CodeGeneric},
		grammar.AdviceTraits{Own: GenericAdvice, OwnAction: GenericAction}, grammar.ActionInvestigate, RetryUnknown, 0,
		[]string{"not one of the formats xla_oom knows", "Report the message"}},
}

func TestFinish(t *testing.T) {
	for _, c := range finishCases {
		t.Run(c.name, func(t *testing.T) {
			r := c.read
			Finish(&r, c.text, c.traits)
			e, _ := grammar.LookupCode(c.read.Code)
			if r.Name != e.Name || r.Category != e.Category || r.DocURL != e.DocURL || r.Phase == "" || (e.Phase != "" && r.Phase != e.Phase) {
				t.Errorf("catalog fields %q %q %q, phase %q", r.Name, r.Category, r.DocURL, r.Phase)
			}
			if r.Action != c.action || r.Retry != c.retry {
				t.Errorf("action %q retry %q, want %q %q", r.Action, r.Retry, c.action, c.retry)
			}
			if math.Abs(r.FitFraction-c.fit) > 0.001 {
				t.Errorf("FitFraction %v, want %v", r.FitFraction, c.fit)
			}
			all := strings.Join(r.Remediation, "\n")
			at := 0
			for _, w := range c.advice {
				i := strings.Index(all[at:], w)
				if i < 0 {
					t.Fatalf("%q not in the advice (after byte %d):\n%s", w, at, all)
				}
				at += i + len(w)
			}
		})
	}
}

// Finish derives the cause from the request and the free memory, the
// memory space from a TPU memory id, and the backend from the text.
func TestFinishDerives(t *testing.T) {
	r := grammar.Report{Code: grammar.CodeBuffer, Device: "0x0x1_HBM0", Requested: b(8388608), Free: b(6742344)}
	Finish(&r, `ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)`, grammar.AdviceTraits{})
	if r.Cause != grammar.CauseExhaustion || r.MemorySpace != "hbm" || r.Backend != grammar.BackendTPU || r.Phase != grammar.PhaseRuntime {
		t.Errorf("cause %q space %q backend %q phase %q", r.Cause, r.MemorySpace, r.Backend, r.Phase)
	}
	// The allocator's summary settled fragmentation although the request exceeds the free memory.
	r = grammar.Report{Code: grammar.CodeGeneric, Requested: b(1610612736), Free: b(1073741824), Cause: grammar.CauseFragmentation}
	Finish(&r, `W0702 09:41:57.118204    7731 bfc_allocator.cc:599] Allocator (GPU_1_bfc) ran out of memory trying to allocate 1.50GiB (rounded to 1610612736) from the lower end requested by op `, grammar.AdviceTraits{})
	if r.Cause != grammar.CauseFragmentation || r.Backend != grammar.BackendGPU {
		t.Errorf("cause %q backend %q", r.Cause, r.Backend)
	}
}
