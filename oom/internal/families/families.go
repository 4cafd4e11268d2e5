// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package families holds one entry per message format XLA (or a runtime under it) prints when memory runs out
// or runs short. Adding a family touches this package only.
package families

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// FailureGroups is every group of message families in matching order: where two messages fill one field, or
// two families match at one place, the earlier family wins.
var FailureGroups = [][]grammar.Family{
	tpuFamilies,          // TPU compiler and runtime messages with sizes
	tpuSizelessFamilies,  // the same messages without sizes: a full message is read by the group above
	gpuFamilies,          // XLA's GPU allocator statuses and the allocator and driver lines around them
	gpuDriverFamilies,    // the CUDA/ROCm driver out of memory outside XLA's pool
	cpuFamilies,          // the host runtime out of RAM
	tensorflowFamilies,   // TensorFlow ops that could not allocate a tensor
	gpuAutotunerFamilies, // last of the failures: its status wraps an example failure whose own message gives the sizes
}

// WarningGroups are the memory-pressure warnings; their order decides only between two at one place.
var WarningGroups = [][]grammar.WarningFamily{
	warningFamilies,
	attemptFamilies, // allocation attempts: counted in a failure's record, a warning alone
}

// CPU families: the host runtime running out of RAM.
var cpuFamilies = []grammar.Family{
	{
		ID:      "cpu-runtime",
		Summary: "The CPU runtime could not allocate host memory for a buffer.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendCPU,
		Anchor:  "Out of memory allocating",
		Expr:    `Out of memory allocating (?P<requested>\d+(?:,\d{3})*) bytes`,
		Cues:    []logtext.Cue{{Text: "memory allocating"}}, // printed alone by str(e)
		Advice:  grammar.AdviceTraits{HostRAM: true},
		Example: `jax.errors.JaxRuntimeError: Out of memory allocating 41246000000 bytes`,
	},
	{
		ID:      "cpu-runtime-host-buffer",
		Summary: "The runtime could not allocate a host buffer (transfer staging, host offloading, the host executor).",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime,
		Anchor: " host ",
		Expr: `(?:HostAllocate: )?[Ff]ailed to allocate(?: (?P<requested>\d+) bytes (?:for|of(?: aligned)?)| pinned)? host ` +
			`(?:offloading transfer buffer|memory(?: for device ordinal (?P<device>\d+)| of size (?P<sized>\d+)(?: pinned to NUMA node \d+)?)?)`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			if n := m.Group("sized"); n != "" && !grammar.CutAtEndOf(m, "sized") {
				r.Requested = grammar.ParseSizeToken(n)
			}
			r.MemorySpace = "host"
			// "Failed to allocate host memory for <what>: <status>" carries the status's own failure.
			return m.Took("requested") || m.Took("sized")
		},
		Advice:  grammar.AdviceTraits{HostRAM: true},
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 268435456 bytes of aligned host memory`,
	},
	{
		ID:      "cpu-runtime-staging-buffer",
		Summary: "The PJRT client could not allocate a host staging buffer for a transfer.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime,
		Anchor: "staging buffer of size ",
		Expr:   `Failed to allocate staging buffer of size (?P<size>\d+)`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			// The message ends with its size: read it whole even at the end.
			r.Requested = grammar.ParseSizeToken(m.Group("size"))
			r.MemorySpace = "host"
			return true
		},
		Advice:  grammar.AdviceTraits{HostRAM: true},
		Example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate staging buffer of size 268435456`,
	},
}
