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
		advice:  adviceTraits{hostRAM: true},
		example: `jax.errors.JaxRuntimeError: Out of memory allocating 41246000000 bytes`,
	},
}
