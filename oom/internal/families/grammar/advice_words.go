// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import "strings"

// Action kinds (Report.Action, attribute xla.oom.action; oom/api.go).
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

// ConstAction is an own advice's kind that reads nothing from the report.
func ConstAction(a string) func(*Report) string { return func(*Report) string { return a } }

// Advice is a list of steps, built by the advice functions.
type Advice []string

// Add appends one step, the concatenation of parts.
func (a *Advice) Add(parts ...string) { *a = append(*a, strings.Join(parts, "")) }

// HumanSize formats a size for advice text ("1.50GiB").
func HumanSize(s Size) string { return HumanBytes(s.Bytes) }

// Ratio returns need/have, or 0 when either is unknown or have is not positive.
func Ratio(need, have Size) float64 {
	if !need.Known || !have.Known || have.Bytes <= 0 {
		return 0
	}
	return float64(need.Bytes) / float64(have.Bytes)
}
