// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// A message cut at any point after its first size is still recognised with
// its code, and every field it reads is the full message's or unset: a cut
// never produces a different (guessed) value.
func TestCutPointsNeverGuess(t *testing.T) {
	for _, full := range []string{
		`XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.`,
		`ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0): while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well).`,
		`RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.`,
		`RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely to have enough memory. Requires 3.84T, has 90.96G available.`,
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 896.00MiB with allocator GPU_0_bfc on device 0.`,
		`RuntimeError: Resource exhausted: Failed to allocate request for 154.06GiB (165425291480B) on device ordinal 0`,
		`tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:Conv2D]`,
		`jaxlib.xla_extension.XlaRuntimeError: INTERNAL: [1] Failed to allocate 512.00MiB (536870912 bytes) of pinned host memory: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
	} {
		whole, ok := Recognize(full)
		if !ok {
			t.Fatalf("full message not recognised: %q", full)
		}
		for k := len(full) - 1; k > len(full)/2; k-- {
			text := full[:k]
			r, ok := Recognize(text)
			if !ok {
				continue // the cut fell before the family is identified
			}
			if r.Code != whole.Code && r.Family != generic.FamilyGeneric { // the last-resort layer reads a cut headline as E0007
				t.Errorf("%q: code %s, full message %s", text, r.Code, whole.Code)
			}
			got, full := reportSizes(r), reportSizes(whole)
			for i, name := range sizeNames {
				if got[i].Known && got[i] != full[i] && !withinPrintedPrecision(got[i], full[i]) {
					t.Errorf("%q: %s = %d, the full message says %+v", text, name, got[i].Bytes, full[i])
				}
			}
			for _, f := range []struct{ name, got, want string }{
				{"Device", r.Device, whole.Device}, {"Program", r.Program, whole.Program}, {"Instruction", r.Instruction, whole.Instruction},
			} {
				if f.got != "" && f.got != f.want {
					t.Errorf("%q: %s = %q, the full message says %q", text, f.name, f.got, f.want)
				}
			}
			if (r.HasReplica && r.Replica != whole.Replica) || (r.HasPartition && r.Partition != whole.Partition) {
				t.Errorf("%q: replica/partition %d/%d, the full message says %d/%d", text, r.Replica, r.Partition, whole.Replica, whole.Partition)
			}
		}
	}
}

// withinPrintedPrecision: a rounded human size ("154.06GiB") read where a
// cut removed the exact figure after it is right to its printed precision
// (two decimals: well within 1%).
func withinPrintedPrecision(got, exact grammar.Size) bool {
	d := got.Bytes - exact.Bytes
	if d < 0 {
		d = -d
	}
	return exact.Known && d <= exact.Bytes/100
}
