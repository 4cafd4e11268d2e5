// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package generic

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// firstCandidate is the first statement of text the layer accepts, its
// entries as the recogniser flattens them.
func firstCandidate(text string) (grammar.Report, bool) {
	var entries logtext.Entries
	flat := logtext.WrapVocabulary(nil).FlattenLevels(text, nil, &entries, nil)
	var r grammar.Report
	found := false
	EachCandidate(flat, &entries, func(c *Candidate) bool {
		if c.At < c.From || c.At >= c.To || c.To > len(flat) {
			return false // a statement outside its own entry is never taken
		}
		r, found = c.R, true
		return true
	})
	return r, found
}

func b(n int64) grammar.Size { return grammar.KnownSize(n) }

// TestGenericReads: memory failures no family knows, from XLA's and
// jaxlib's own templates (oom/testdata/coverage/classification.tsv and the
// sources named), with what the layer reads of each.
func TestGenericReads(t *testing.T) {
	type read struct {
		backend, space, phase     string
		requested, free, capacity grammar.Size
	}
	for _, c := range []struct {
		name, text string
		want       read
	}{
		{"MORI collective memory (gpu/collectives/mori_collectives.cc)",
			`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate 1.00GiB (1073741824 bytes) from MORI memory`,
			read{requested: b(1073741824)}},
		{"RCCL collective memory (gpu/collectives/rccl_collectives.cc)",
			`jaxlib.xla_extension.XlaRuntimeError: INTERNAL: failed to allocate 512.00MiB (536870912 bytes) from device collective memory: unhandled cuda error (run with NCCL_DEBUG=INFO for details), Last NCCL warning(error) log entry (may be unrelated): Cuda failure 'out of memory'`,
			read{requested: b(536870912)}}, // "Cuda failure" names no backend
		{"pinned host memory on a NUMA node (cuda_host_allocator.cc)",
			`jax.errors.JaxRuntimeError: INTERNAL: [0] Failed to allocate 2.00GiB (2147483648 bytes) of host memory pinned to NUMA node 1`,
			read{space: "host", requested: b(2147483648)}},
		{"solver workspace (jaxlib/gpu/solver_kernels_ffi.cc)",
			`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Unable to allocate device workspace for syevd`, read{}},
		{"MIOpen CTC loss scratch with its size", `jax.errors.JaxRuntimeError: INTERNAL: Failed to allocate scratch memory for MIOpen CTC Loss, of size: 33554432`, read{}},
		{"DNNL: a bare out of memory ending an INTERNAL status", `jaxlib.xla_extension.XlaRuntimeError: INTERNAL: DNNL operation failed: out of memory`, read{}},
		{"ROCm event", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: could not create ROCM event: out of device memory`, read{}},
		{"SYCL host memory", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: SyclMallocHost: Failed to allocate host memory: out of host memory, file = xla/stream_executor/sycl/sycl_gpu_runtime.cc, line = 741`,
			read{backend: "gpu", space: "host"}}, // sycl_gpu_runtime.cc
		{"FFT work area at ERROR, no status", `E0822 14:03:11.512345  181818 cuda_fft.cc:273] Failed to allocate work area.`, read{}}, // the header's file name is stripped
		{"StreamExecutor's refusal raised (jobs/platform_near_full_oom.log)",
			`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate device memory of 11.18GiB (12000000000 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
			read{backend: "gpu", requested: b(12000000000)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ok := firstCandidate(c.text)
			if !ok {
				t.Fatal("the layer does not take it")
			}
			if r.Family != FamilyGeneric || r.Code != grammar.CodeGeneric {
				t.Errorf("family %q code %q", r.Family, r.Code)
			}
			if got := (read{r.Backend, r.MemorySpace, r.Phase, r.Requested, r.Free, r.Capacity}); got != c.want {
				t.Errorf("read %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestGenericRejects: statements the layer leaves alone, by a foreign
// phrase or by its own rules.
func TestGenericRejects(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"AWS Neuron's own allocator", `RuntimeError: RESOURCE_EXHAUSTED: nrt_tensor_allocate status=4 message="Allocation Failure": Failed to allocate 2147483648 bytes on NeuronCore 0 (HBM)`},
		{"ENOMEM of a shared-memory segment", `E1122 10:00:00.000000 4242 shared_memory.cc:97] Failed to allocate 2.00GiB (2147483648 bytes) of shared memory for /dev/shm/plasma: Cannot allocate memory`},
		{"PyTorch's caching allocator", `RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.70 GiB total capacity; 19.47 GiB already allocated; 1.44 GiB free; 20.85 GiB reserved in total by PyTorch)`},
		{"memory-space assignment trace at INFO", `I0822 14:03:11.512345  181818 algorithm.cc:6733] Could not allocate preferred memory for cross program prefetch`},
		{"a bare out of memory at INFO", `I0822 14:03:11.512345  181818 algorithm.cc:9941] Out of memory.`},
		{"the BFC retry its caller survives", `W1122 10:54:45.359616    2494 bfc_allocator.cc:371] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.01MiB from the lower end with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.`},
		{"no error context", `Failed to allocate 1.00GiB (1073741824 bytes) from the scratch arena`},
		{"Java's heap", `Exception in thread "main" java.lang.OutOfMemoryError: Java heap space`},
	} {
		if r, ok := firstCandidate(c.text); ok {
			t.Errorf("%s: taken as %+v", c.name, r)
		}
	}
}
