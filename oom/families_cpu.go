// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

// CPU families: the host runtime running out of RAM.
// docs/message-formats.md lists them with their grammar and an example.

var cpuFamilies = []family{
	{
		id:      "cpu-runtime",
		summary: "The CPU runtime could not allocate host memory for a buffer.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendCPU,
		anchor:  "Out of memory allocating",
		expr:    `Out of memory allocating (?P<requested>\d+(?:,\d{3})*) bytes`,
		cues:    []cue{{text: "memory allocating"}}, // printed alone by str(e)
		advice:  adviceTraits{hostRAM: true},
		example: `jax.errors.JaxRuntimeError: Out of memory allocating 41246000000 bytes`,
	},
	{
		id:      "cpu-runtime-host-buffer",
		summary: "The runtime could not allocate a host buffer (transfer staging, host offloading, the host executor).",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime,
		anchor: " host ",
		expr: `(?:HostAllocate: )?[Ff]ailed to allocate(?: (?P<requested>\d+) bytes (?:for|of(?: aligned)?)| pinned)? host ` +
			`(?:offloading transfer buffer|memory(?: for device ordinal (?P<device>\d+)| of size (?P<sized>\d+)(?: pinned to NUMA node \d+)?)?)`,
		read: func(r *Report, m match) bool {
			if n := m.group("sized"); n != "" && !cutAtEndOf(m, "sized") {
				r.Requested = parseSizeToken(n)
			}
			r.MemorySpace = "host"
			// "Failed to allocate host memory for <what>: <status>" carries the status's own failure.
			return m.took("requested") || m.took("sized")
		},
		advice:  adviceTraits{hostRAM: true},
		example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 268435456 bytes of aligned host memory`,
	},
	{
		id:      "cpu-runtime-staging-buffer",
		summary: "The PJRT client could not allocate a host staging buffer for a transfer.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime,
		anchor: "staging buffer of size ",
		expr:   `Failed to allocate staging buffer of size (?P<size>\d+)`,
		read: func(r *Report, m match) bool {
			// The message ends with its size: read it whole, as it is
			// whether or not more text follows.
			r.Requested = parseSizeToken(m.group("size"))
			r.MemorySpace = "host"
			return true
		},
		advice:  adviceTraits{hostRAM: true},
		example: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate staging buffer of size 268435456`,
	},
}
