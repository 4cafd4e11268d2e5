// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"slices"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
)

// genericCases are memory failures no family knows, and what the last-resort
// layer reads from them. src says where the text comes from: a template of
// the XLA or jaxlib source (file), or "composed" for a plausible future
// wording built from the pieces XLA prints.
var genericCases = []struct {
	name, src, text string
	want            want
}{
	{"MORI collective memory", "xla/backends/gpu/collectives/mori_collectives.cc",
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from MORI memory`,
		want{code: "E0007", family: generic.FamilyGeneric, requested: b(1073741824)}},
	{"RCCL device collective memory", "xla/backends/gpu/collectives/rccl_collectives.cc",
		`jaxlib.xla_extension.XlaRuntimeError: INTERNAL: failed to allocate 512.00MiB (536870912 bytes) from device collective memory: unhandled cuda error (run with NCCL_DEBUG=INFO for details), Last NCCL warning(error) log entry (may be unrelated): Cuda failure 'out of memory'`,
		want{code: "E0007", family: generic.FamilyGeneric, requested: b(536870912)}},
	{"pinned host memory on a NUMA node", "xla/stream_executor/cuda/cuda_host_allocator.cc",
		`jax.errors.JaxRuntimeError: INTERNAL: [0] Failed to allocate 2.00GiB (2147483648 bytes) of host memory pinned to NUMA node 1`,
		want{code: "E0007", family: generic.FamilyGeneric, space: "host", requested: b(2147483648)}},
	{"host memory for offloaded values", "composed",
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 2.00GiB (2147483648 bytes) of host memory for the offloaded activations`,
		want{code: "E0007", family: generic.FamilyGeneric, space: "host", requested: b(2147483648)}},
	{"solver workspace", "jaxlib/gpu/solver_kernels_ffi.cc",
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Unable to allocate device workspace for syevd`,
		want{code: "E0007", family: generic.FamilyGeneric}},
	{"bare status", "composed",
		`jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory`,
		want{code: "E0007", family: generic.FamilyGeneric}},
	{"device memory with free and total", "composed",
		"E1122 10:00:00.000000 1 device_allocator.cc:88] Out of device memory: failed to allocate 8.00GiB (8589934592 bytes), free: 1.50GiB, total: 79.10GiB",
		want{code: "E0007", family: generic.FamilyGeneric, requested: b(8589934592), free: b(1610612736), capacity: b(84932978278), cause: "exhaustion"}},
	{"compile-time scratch", "composed",
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Compilation failed: not enough device memory to allocate 6.00GiB for the autotuning scratch buffers`,
		want{code: "E0007", family: generic.FamilyGeneric, phase: grammar.PhaseCompile, requested: b(6442450944)}},
	{"TPU ran out, free stated", "composed",
		`RuntimeError: RESOURCE_EXHAUSTED: TPU ran out of memory while loading the embedding table: needs 12.00G, 3.50G free`,
		want{code: "E0007", family: generic.FamilyGeneric, backend: "tpu", free: b(3758096384)}},
	{"HBM exhausted while allocating", "composed",
		`RuntimeError: Resource exhausted: HBM memory exhausted on TPU:0 while allocating 3.00G for the KV cache`,
		want{code: "E0007", family: generic.FamilyGeneric, backend: "tpu", requested: b(3221225472)}},
	{"in a traceback, sizes from the failing line", "composed",
		"W0101 00:00:00.000000 7 bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.16GiB with freed_by_count=0.\n" +
			"Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n    step(state)\n" +
			"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 768.00MiB (805306368 bytes) from MORI memory",
		want{code: "E0007", family: generic.FamilyGeneric, backend: "gpu", requested: b(805306368)}}, // backend: the allocator name GPU_0_bfc
}

// The layer itself reads every case, whether or not a family is added for
// one of them later.
func TestGenericLayerReads(t *testing.T) {
	for _, c := range genericCases {
		t.Run(c.name, func(t *testing.T) {
			r, ok := lastResortOf(c.text)
			if !ok {
				t.Fatalf("the last-resort layer does not read %q", c.text)
			}
			if r.Family != generic.FamilyGeneric || r.Code != grammar.CodeGeneric || r.MemorySpace != c.want.space || r.Requested != c.want.requested || r.Free != c.want.free || r.Capacity != c.want.capacity {
				t.Errorf("got %+v", r)
			}
		})
	}
}

// Through Recognize, a failure no family knows is a generic finding with
// its advice; a family added later for one of them takes over.
func TestGenericThroughRecognize(t *testing.T) {
	for _, c := range genericCases {
		t.Run(c.name, func(t *testing.T) {
			if !MayContain(c.text) {
				t.Fatalf("MayContain = false")
			}
			r, ok := Recognize(c.text)
			if !ok {
				t.Fatalf("not recognised")
			}
			w := c.want
			if w.phase == "" {
				w.phase = grammar.PhaseRuntime
			}
			if r.Family != generic.FamilyGeneric {
				// A family knows this text now: it takes over, and must read
				// every size the layer read, the same.
				got := reportSizes(r)
				for i, want := range w.sizes() {
					if want.Known && got[i] != want {
						t.Errorf("family %s: %s = %+v, the layer read %+v", r.Family, sizeNames[i], got[i], want)
					}
				}
				if w.space != "" && r.MemorySpace != w.space {
					t.Errorf("family %s: MemorySpace = %q, the layer read %q", r.Family, r.MemorySpace, w.space)
				}
				return
			}
			w.advice = []string{"not one of the formats xla_oom knows", "Report the message"}
			checkReport(t, r, w)
		})
	}
}

// Every phrase that keeps the layer out is needed by a look-alike: without
// it, that look-alike would be tagged.
func TestGenericGuardsAreNeeded(t *testing.T) {
	saved := generic.GenericForeign
	defer func() { generic.GenericForeign = saved }()
	for i, phrase := range saved {
		generic.GenericForeign = slices.Delete(slices.Clone(saved), i, i+1)
		needed := false
		for _, l := range lookalikes {
			if strings.Contains(l.text, phrase) {
				if _, ok := lastResortOf(l.text); ok {
					needed = true
				}
			}
		}
		if !needed {
			t.Errorf("guard %q: no look-alike needs it (add one, or drop the guard)", phrase)
		}
	}
}

// Statements the layer rejects by its own rules, not by a guard: a retry
// logged at INFO or WARNING, no error context, a bare "out of memory" of
// something that is not XLA, an allocation clause naming neither a size nor
// memory.
func TestGenericRules(t *testing.T) {
	for _, text := range []string{
		"W0101 00:00:00.000000 7 some_allocator.cc:12] RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from the scratch arena; retrying",
		"I0101 00:00:00.000000 7 some_allocator.cc:12] RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from the scratch arena",
		"Failed to allocate 1.00GiB (1073741824 bytes) from the scratch arena",
		"ERROR:root:RESOURCE_EXHAUSTED: out of memory in the request cache",
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate the output tuple",
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: allocation of 1.00GiB (1073741824 bytes) is larger than the limit",
	} {
		if r, ok := Recognize(text); ok {
			t.Errorf("%q recognised as %s", text, r.Family)
		}
	}
}

// lastResortOf is what the last-resort layer alone reads of text, as
// recognizeFlat would run it.
func lastResortOf(text string) (grammar.Report, bool) {
	var entries logtext.Entries
	var st speaker.Attribution
	marks := st.Marks()
	flat := defaultRecognizer.wrapWords.FlattenLevels(text, nil, &entries, &marks)
	return defaultRecognizer.lastResort(flat, &entries, &st)
}
