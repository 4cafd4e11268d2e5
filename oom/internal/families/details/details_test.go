// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// readDetails runs every detail on text as the recogniser does after the
// failure's own message, starting from seed.
func readDetails(text string, seed grammar.Report) grammar.Report {
	flat := logtext.WrapVocabulary(nil).Flatten(text)
	r := seed
	for _, d := range Details {
		grammar.EachAnchor(flat, d.Anchor, func(i int) {
			d.Read(&r, flat[max(0, i-DetailSpan):i], flat[i+len(d.Anchor):min(len(flat), i+len(d.Anchor)+DetailSpan)])
		})
	}
	var a Allocator // as the recogniser reads a record: the allocator's figures after the details
	a.Read(flat)
	a.Apply(&r)
	if !r.Used.Known {
		r.Used = a.InUse
	}
	return r
}

// fixture reads a record of the oom package's fixtures.
func fixture(t *testing.T, parts ...string) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(append([]string{"..", "..", "..", "testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func b(n int64) grammar.Size { return grammar.KnownSize(n) }

func TestDetailsReadRealLines(t *testing.T) {
	type facts struct {
		program, device, phase, space string
		replica, partition            int64
		hasReplica, hasPartition      bool
		free, capacity, used, pool    grammar.Size
	}
	of := func(r *grammar.Report) facts {
		return facts{r.Program, r.Device, r.Phase, r.MemorySpace, r.Replica, r.Partition, r.HasReplica, r.HasPartition, r.Free, r.Capacity, r.Used, r.PoolLimit}
	}
	for _, c := range []struct {
		name, text string
		want       facts
	}{
		{"pjrt replica failed", `E0314 21:29:02.854727  957629 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4831838208 bytes. [tf-allocator-allocation-error='']`,
			facts{replica: 0, hasReplica: true}},
		{"replica, partition and TPU memory id (pytorch/xla#8020)", `RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 196.00M. That was not possible. There are 134.44M free.; (1x0x0_HBM0): while running replica 0 and partition 0 of a replicated computation (other replicas may have failed as well).`,
			facts{device: "1x0x0_HBM0", hasReplica: true, hasPartition: true}},
		{"old client's 'areplicated'", `RuntimeError: Resource exhausted: Failed to allocate request for 1.00GiB (1073741824B) on device ordinal 0: while running replica 0 and partition 1 of areplicated computation (other replicas may have failed as well).`,
			facts{partition: 1, hasReplica: true, hasPartition: true}},
		{"program being loaded, partition 34", `XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well).`,
			facts{program: "jit_embedding_pipeline_step_fn", partition: 34, hasReplica: true, hasPartition: true}},
		{"status payload", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory [executable_name='jit_broadcast_in_dim']`,
			facts{program: "jit_broadcast_in_dim"}},
		{"CUDA's free and total", "E1103 18:23:55.103160 3413767 gpu_cudamallocasync_allocator.cc:361] gpu_async_0 cuMemAllocAsync failed to allocate 1073741824 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n Reported by CUDA: Free memory/Total memory: 2147483648/85095874560",
			facts{free: b(2147483648), capacity: b(85095874560)}},
		{"autotuning failed the compile", `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to get configs for: 3 out of 3 instructions. See logs for all failures. Example failure: Out of memory while trying to allocate 32.00MiB with allocator GPU_0_bfc on device 0.`,
			facts{phase: grammar.PhaseCompile}},
		// "InUse: 0B" right after "Stats: Limit: 59.38GiB"; MaxInUse is the peak, not read
		{"cudaMallocAsync stats (real capture)", fixture(t, "real", "cuda_async_device_put.stderr.txt"),
			facts{free: b(20701184000), capacity: b(85017493504), used: b(0), pool: b(63758789509)}},
		{"XRT: HBM capacity 8.00G, a PyTorch/XLA device", fixture(t, "messages", "tpu-runtime-program-load_xrt_breakdown.txt"),
			facts{space: "hbm", capacity: b(8589934592)}},
		{"PyTorch/XLA device", fixture(t, "messages", "tpu-runtime-program-load_transformers22328_root_errors.txt"),
			facts{device: "TPU:6"}},
		// "total free in pool 1.00GiB ... unallocated bytes 6.00GiB ... pool limit 8.00GiB", then "Stats: Limit: 8.00GiB InUse: 1.00GiB"
		{"BFC summary", fixture(t, "allocator_dump", "growth_failed.txt"),
			facts{free: b(7516192768), used: b(1073741824), pool: b(8589934592)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := readDetails(c.text, grammar.Report{})
			if got := of(&r); got != c.want {
				t.Errorf("read %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// A detail fills only what the failure left empty.
func TestDetailsKeepTheFailuresFields(t *testing.T) {
	seed := grammar.Report{Program: "jit_step", Free: b(1), Capacity: b(2), Device: "0"}
	r := readDetails(`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory [executable_name='jit_broadcast_in_dim']`+
		"\n Reported by CUDA: Free memory/Total memory: 2147483648/85095874560", seed)
	if r.Program != "jit_step" || r.Free != b(1) || r.Capacity != b(2) || r.Device != "0" {
		t.Errorf("the details replaced the failure's fields: %+v", r)
	}
}

func TestCUDAFreeTotal(t *testing.T) {
	for _, c := range []struct {
		in, free, total string
		ok              bool
	}{
		{"19529728/85017493504", "19529728", "85017493504", true},
		{"20701184000/85017493504\nE1122 10:53:19.420431", "20701184000", "85017493504", true},
		{"19529728/", "19529728", "", false}, // cut after the slash
		{"19529728", "19529728", "", false},
	} {
		free, total, ok := CUDAFreeTotal(c.in)
		if free != c.free || total != c.total || ok != c.ok {
			t.Errorf("CUDAFreeTotal(%q) = %q %q %v", c.in, free, total, ok)
		}
	}
}
