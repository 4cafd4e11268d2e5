// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

// Action kinds (Report.Action, attribute xla.oom.action): the kind of the
// first step of a report's advice, so that dashboards can count incidents by
// fix and automation can branch on it. Every advice row carries its kind
// (remediation*.go), so the kind comes from the same row as the step.
const (
	ActionShrinkFootprint  = "shrink_footprint"   // a smaller batch, sequence or tensors: less per device
	ActionShard            = "shard"              // shard over more devices, or check that an array is sharded
	ActionRematerialize    = "rematerialize"      // trade compute for memory: remat, the compiler's rematerialization
	ActionReleaseBuffers   = "release_buffers"    // free, donate or re-create the program's own buffers and programs
	ActionChangeAllocator  = "change_allocator"   // another allocator (cuda_async, platform) against fragmentation
	ActionSetMemoryLimit   = "set_memory_limit"   // change a memory limit or share: MEM_FRACTION, VMEM limit, host pool
	ActionFreeHeldMemory   = "free_held_memory"   // memory held outside the program (another process or library)
	ActionRetileKernel     = "retile_kernel"      // smaller tiles or scratch of a custom kernel (Pallas, Mosaic)
	ActionTuneCompiler     = "tune_compiler"      // a compiler or runtime flag (autotuning, offload, command buffers)
	ActionReduceHostMemory = "reduce_host_memory" // less in host RAM or pinned host memory
	ActionInvestigate      = "investigate"        // no fix is known from the record: profile, dump, report
)

// Actions lists every action kind with what it means, in the order the docs
// give them.
var Actions = []struct{ Name, Meaning string }{
	{ActionShrinkFootprint, "reduce what the program keeps per device: a smaller batch or sequence length, smaller or 16-bit tensors"},
	{ActionShard, "shard the program or the array over more devices, or check that it is sharded as intended"},
	{ActionRematerialize, "trade compute for memory: jax.checkpoint (remat), the compiler's rematerialization, host offload"},
	{ActionReleaseBuffers, "free, donate or re-create the program's own buffers; keep fewer programs loaded"},
	{ActionChangeAllocator, "use another allocator (cuda_async, platform) against fragmentation"},
	{ActionSetMemoryLimit, "change a memory limit or share: XLA_PYTHON_CLIENT_MEM_FRACTION, a kernel's VMEM limit, the pinned host pool"},
	{ActionFreeHeldMemory, "free memory that another process or library holds on the device, or give each its own share"},
	{ActionRetileKernel, "use smaller tiles, blocks or scratch in a custom kernel (Pallas, Mosaic, SparseCore)"},
	{ActionTuneCompiler, "set a compiler or runtime flag: autotuning, SparseCore offload, command buffers, program temporaries"},
	{ActionReduceHostMemory, "keep, transfer or offload less in host RAM or pinned host memory"},
	{ActionInvestigate, "no fix is read from the record: profile, dump the allocations, or report the message"},
}

// actionOfRow is the kind of the step row gives for c: its own, else the
// one its actionOf reads (a family's lead or note, a step whose fix depends
// on the figures).
func actionOfRow(row *adviceRow, c adviceCase) string {
	if row.actionOf != nil {
		return row.actionOf(c)
	}
	return row.action
}

// leadAction and noteAction are the kinds of a family's lead step and note.
func leadAction(c adviceCase) string { return c.traits.leadAction }
func noteAction(c adviceCase) string { return c.traits.noteAction }

// adviseWithAction is remediate and the kind of the first step: that of the
// row that gave it, or of the family's own advice.
func adviseWithAction(r *Report, flat string, traits adviceTraits) ([]string, string) {
	c := adviceCase{r: r, flat: flat, traits: traits}
	if traits.own != nil {
		if traits.ownAction == nil { // every family sets it (TestEveryAdviceHasAnAction)
			return traits.own(r), ActionInvestigate
		}
		return traits.own(r), traits.ownAction(r)
	}
	var first *adviceRow
	steps := adviseSeen(c, func(_ string, row *adviceRow, given []string) {
		if first == nil && len(given) > 0 {
			first = row
		}
	})
	if first == nil {
		return steps, ActionInvestigate
	}
	return steps, actionOfRow(first, c)
}

// constAction is an own advice's kind that reads nothing from the report.
func constAction(a string) func(*Report) string { return func(*Report) string { return a } }

// genericAction is the kind of a last-resort finding's first step: its
// first row ("what failed") always holds.
func genericAction(*Report) string { return genericAdviceTable[0].action }

// unifiedMemoryAction is the kind of unifiedMemoryAdvice's first step.
func unifiedMemoryAction(r *Report) string {
	if r.MemorySpace == "host" {
		return ActionReduceHostMemory
	}
	return ActionReleaseBuffers
}
