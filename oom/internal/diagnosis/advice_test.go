// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/breakdown"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// record is a real record of the oom package's fixtures, flattened.
func record(t *testing.T, parts ...string) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(append([]string{"..", "..", "testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return logtext.WrapVocabulary(nil).Flatten(string(body))
}

// TestRecordAdvice: the advice of whole real records, their breakdowns and
// allocator figures included.
func TestRecordAdvice(t *testing.T) {
	for _, c := range []struct {
		name   string
		path   []string
		read   grammar.Report // the headline's fields
		action string
		advice []string // each somewhere in the steps
	}{
		{"jax#7502: 64.00G of 15.48G, one padded concatenate", []string{"messages", "tpu-compile-hbm-used_jax7502_breakdown.txt"},
			grammar.Report{Code: grammar.CodeHbm, Backend: grammar.BackendTPU, MemorySpace: "hbm", Used: b(68719476736), Capacity: b(16621523436), Exceeded: b(52097953300)},
			grammar.ActionShard, []string{"shard it over at least 5 devices", "4.13×",
				"made by `jit(t)/jit(_take_along_axis)/concatenate[ dimension=4 ]` at t.py:6",
				"32.0× expansion", "dimension 4 (size 4, minor-most) is padded to 128"}},
		{"EasyDeL#166", []string{"messages", "tpu-compile-hbm-used_easydel166_breakdown.txt"},
			grammar.Report{Code: grammar.CodeHbm, Backend: grammar.BackendTPU, MemorySpace: "hbm", Used: b(68504728371), Capacity: b(33017561088), Exceeded: b(35487167283)},
			grammar.ActionShard, []string{"at least 3 devices", "/home/air/workspace/EasyDel/src/easydel/modules/attention_module.py:1059"}},
		{"XRT program load: reserve 3.95G, 1.92G free", []string{"messages", "tpu-runtime-program-load_xrt_breakdown.txt"},
			grammar.Report{Code: grammar.CodeProgram, Backend: grammar.BackendTPU, MemorySpace: "hbm", Requested: b(4241280205), Free: b(2061584302), Reserved: b(0), Reservable: b(2061584302), Capacity: b(8589934592)},
			grammar.ActionShrinkFootprint, []string{"short by 2.55 GiB, with 6.08 GiB already allocated", "exhaustion, not fragmentation"}},
		{"jax#13428: 6.00MiB, an entry parameter", []string{"messages", "gpu-allocator-status_jax13428_bufferassignment.txt"},
			grammar.Report{Code: grammar.CodeGeneric, Backend: grammar.BackendGPU, Requested: b(6291456)},
			grammar.ActionShrinkFootprint, []string{"models.py:689", "largest program input in the list takes 384.00 KiB (f32[256,128,3])"}},
		// 6.00GiB asked of a 3.96GiB pool (XLA_PYTHON_CLIENT_MEM_FRACTION .05), all of it free
		{"request larger than the BFC pool", []string{"real", "mem_fraction_device_put.stderr.txt"},
			grammar.Report{Code: grammar.CodeGeneric, Backend: grammar.BackendGPU, Device: "0", Requested: b(6442450944), Free: b(4252017623), PoolLimit: b(4252017623), Cause: grammar.CauseExhaustion},
			grammar.ActionSetMemoryLimit, []string{"larger than XLA's whole memory pool on this GPU (pool limit 3.96 GiB; only 3.96 GiB is free)",
				"helps only if the GPU has well over 6.00 GiB in total"}},
		// 93.13GiB asked of the 64 GiB pinned host pool
		{"request larger than the pinned host pool", []string{"real", "pinned_host_device_put.stderr.txt"},
			grammar.Report{Code: grammar.CodeGeneric, Backend: grammar.BackendGPU, MemorySpace: "host", Requested: b(100000000000), Free: b(68719476736), PoolLimit: b(68719476736), Cause: grammar.CauseExhaustion},
			grammar.ActionSetMemoryLimit, []string{"larger than XLA's whole pinned host memory pool (pool limit 64.00 GiB)",
				"set XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to at least 94"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			flat := record(t, c.path...)
			r := c.read
			if breakdown.HasBreakdown(flat) {
				breakdown.ReadBreakdown(&r.Breakdown, flat)
			}
			Finish(&r, flat, grammar.AdviceTraits{})
			if r.Action != c.action {
				t.Errorf("action %q, want %q", r.Action, c.action)
			}
			all := strings.Join(r.Remediation, "\n")
			for _, w := range c.advice {
				if !strings.Contains(all, w) {
					t.Errorf("%q not in the advice:\n%s", w, all)
				}
			}
		})
	}
}

func TestAlignmentHint(t *testing.T) {
	for _, c := range []struct{ shape, want string }{
		{"s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}", "dimension 4 (size 4, minor-most) is padded to 128"},  // jax#7502
		{"f32[32,4096,4096]{1,2,0:T(8,128)}", ""},                                                           // EasyDeL#166: aligned
		{"bf16[128,4096,352]{2,1,0:T(16,128)(2,1)}", "dimension 2 (size 352, minor-most) is padded to 384"}, // vLLM
		{"f32[1000,100]", "dimension 1 (size 100, minor-most) is padded to 128"},
		{"bf16[7,256]{1,0:T(16,128)(2,1)}", "dimension 0 (size 7, second minor-most) is padded to 16"},
		{"f32[]", ""},
		{"garbage", ""},
	} {
		got := AlignmentHint(c.shape)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("AlignmentHint(%q) = %q, want %q", c.shape, got, c.want)
		}
	}
}
