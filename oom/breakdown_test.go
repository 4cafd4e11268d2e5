// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/breakdown"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// printed is a size as printed; sizes_test.go checks the parser itself.
func printed(tok string) grammar.Size {
	s := grammar.ParseSizeToken(tok)
	if !s.Known {
		panic("bad size token " + tok)
	}
	return s
}

// Breakdown example 3 of docs/message-formats.md, verbatim (vLLM, every line prefixed, no headline).
const example3 = `(EngineCore_DP0 pid=896988) Total hbm usage >= 101.25G:
(EngineCore_DP0 pid=896988)     reserved        260.00M
(EngineCore_DP0 pid=896988)     program          15.87G
(EngineCore_DP0 pid=896988)     arguments        85.12G
(EngineCore_DP0 pid=896988)
(EngineCore_DP0 pid=896988) Output size 60.29G; shares 60.29G with arguments.
(EngineCore_DP0 pid=896988)
(EngineCore_DP0 pid=896988) Program hbm requirement 15.87G:
(EngineCore_DP0 pid=896988)     global             512B
(EngineCore_DP0 pid=896988)     HLO temp         15.87G (99.8% utilization: Unpadded (15.81G) Padded (15.84G), 0.1% fragmentation (23.87M))
(EngineCore_DP0 pid=896988)
(EngineCore_DP0 pid=896988)   Largest program allocations in hbm:
(EngineCore_DP0 pid=896988)
(EngineCore_DP0 pid=896988)   1. Size: 384.00M
(EngineCore_DP0 pid=896988)      Operator: op_name="params_and_buffers[\'vllm_model.model.layers.1.mlp.experts.w13_weight\']"
(EngineCore_DP0 pid=896988)      Shape: bf16[128,4096,352]{2,1,0:T(16,128)(2,1)}
(EngineCore_DP0 pid=896988)      Unpadded size: 352.00M
(EngineCore_DP0 pid=896988)      Extra memory due to padding: 32.00M (1.1x expansion)
(EngineCore_DP0 pid=896988)      XLA label: copy.1326 = copy(copy.1657), sharding={devices=[1,1,8]<=[8]}, backend_config={"flag_confi`

var (
	example1Breakdown = grammar.Breakdown{
		Total: printed("64.52G"), Reserved: printed("530.00M"), Program: printed("64.00G"), Arguments: printed("0B"),
		Output: printed("0B"), OutputShared: printed("0B"), Temp: printed("64.00G"), TempFragmentation: printed("0B"),
		Padding: grammar.KnownSize(printed("64.00G").Bytes - printed("896.00M").Bytes),
		Allocations: []grammar.Allocation{{
			Size: printed("16.00G"), OpType: "concatenate", OpName: "jit(t)/jit(_take_along_axis)/concatenate[ dimension=4 ]",
			SourceFile: "t.py", SourceLine: 6, Shape: "s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}",
			Unpadded: printed("512.00M"), Padding: printed("15.50G"), Expansion: 32,
			Label: "%fusion.1 = s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)} fusion(s32[2048,1,128,128,1]{4,3,2,0,1:T(8,128)} %iota.5.clone2.remat_uncompressed, s32[2048,1,128,128,1]{4,3,2,0,1:T(8,128)} %iota.4.clone2.remat_uncompressed, s32[2048,1,128,128,1]{4,3,2,0,1:T(8,128)}...",
			Type:  "HLO temp",
		}},
	}
	example2Breakdown = grammar.Breakdown{
		Total: printed("65.05G"), Reserved: printed("1.25G"), Program: printed("63.80G"), Arguments: printed("0B"),
		Output: printed("0B"), OutputShared: printed("0B"), Temp: printed("63.79G"), TempFragmentation: printed("210.89M"), Padding: grammar.KnownSize(0),
		Allocations: []grammar.Allocation{{
			Size:       printed("2.00G"),
			OpName:     `jit(casual_language_model_train_step)/jit(main)/jvp(FlaxFalconForCausalLMModule)/transformer/h/0/self_attention/...qhd,...khd->...hqk/dot_general[dimension_numbers=(((3,), (3,)), ((0, 2), (0, 2))) precision=(Precision.DEFAULT, Precision.DEFAULT) preferred_element_type=bfloat16]`,
			SourceFile: "/home/air/workspace/EasyDel/src/easydel/modules/attention_module.py", SourceLine: 1059,
			Shape: "f32[32,4096,4096]{1,2,0:T(8,128)}", Unpadded: printed("2.00G"),
			Label: "fusion.1265.remat3 = fusion(custom-call.224, custom-call.241, custom-call.22), kind=kOutput, calls=fused_computation.957.clone.clone.clone",
			Type:  "HLO temp",
		}},
	}
	example3Breakdown = grammar.Breakdown{
		Total: printed("101.25G"), Reserved: printed("260.00M"), Program: printed("15.87G"), Arguments: printed("85.12G"),
		Output: printed("60.29G"), OutputShared: printed("60.29G"), Temp: printed("15.87G"), TempFragmentation: printed("23.87M"),
		Padding: grammar.KnownSize(printed("15.84G").Bytes - printed("15.81G").Bytes),
		Allocations: []grammar.Allocation{{
			Size: printed("384.00M"), OpName: "params_and_buffers['vllm_model.model.layers.1.mlp.experts.w13_weight']",
			Shape: "bf16[128,4096,352]{2,1,0:T(16,128)(2,1)}", Unpadded: printed("352.00M"), Padding: printed("32.00M"), Expansion: 1.1,
			Label: `copy.1326 = copy(copy.1657), sharding={devices=[1,1,8]<=[8]}, backend_config={"flag_confi`,
		}},
	}
	jax13428Breakdown = grammar.Breakdown{
		Total: printed("12.00MiB"), Arguments: printed("6.00MiB"), Output: printed("6.00MiB"), Temp: printed("0B"), Fragmentation: printed("0B"),
		Allocations: []grammar.Allocation{
			{Size: printed("6.00MiB"), OpName: "jit(concatenate)/jit(main)/concatenate[dimension=0]",
				SourceFile: "/media/gccrcv/Data/Opensources/multinerf/internal/models.py", SourceLine: 689,
				Shape: "f32[4096,128,3]", Label: "concatenate"},
			{Size: printed("384.0KiB"), Shape: "f32[256,128,3]", Type: "entry parameter"},
		},
	}
	rocmBreakdown = grammar.Breakdown{
		Total: printed("192.84GiB"), Arguments: printed("10.04GiB"), Output: printed("28.74GiB"), Temp: printed("154.06GiB"),
		TempFragmentation: printed("24.75MiB"), Fragmentation: printed("9.71GiB"),
		Allocations: []grammar.Allocation{{Size: printed("38.10GiB"), OpName: "jit(apply_fn)/jit(main)/alphafold/alphafold_iteration/while/body/evoformer/__la..."}},
	}
	xrtBreakdown = grammar.Breakdown{
		Reserved: grammar.KnownSize(554696704), Allocated: grammar.KnownSize(6532939776), Program: grammar.KnownSize(4237689856),
		AvailableAfter: grammar.KnownSize(-2735391744),
	}
)

// prefixLines puts prefix in front of every line of s.
func prefixLines(prefix, s string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func fileText(t *testing.T, name string) string {
	return fixture{file: name}.body(t)
}

func TestBreakdownRealRecords(t *testing.T) {
	xrtHeader := "2020-05-04 09:05:40.721147: E    1578 tensorflow/compiler/xla/xla_client/xla_util.cc:76] "
	cases := []struct {
		name, text string
		headline   bool // the text holds an OOM headline, so Recognize reads it too
		want       grammar.Breakdown
	}{
		{"breakdown example 1 (jax#7502)", fileText(t, "tpu-compile-hbm-used_jax7502_breakdown.txt"), true, example1Breakdown},
		{"breakdown example 1, glog/XRT header on every line", prefixLines(xrtHeader, fileText(t, "tpu-compile-hbm-used_jax7502_breakdown.txt")), true, example1Breakdown},
		{"breakdown example 2 (EasyDeL#166)", fileText(t, "tpu-compile-hbm-used_easydel166_breakdown.txt"), true, example2Breakdown},
		{"breakdown example 2, Ray process tag on every line", prefixLines("(TrainWorker pid=4242) ", fileText(t, "tpu-compile-hbm-used_easydel166_breakdown.txt")), true, example2Breakdown},
		{"breakdown example 2 flattened onto one line", strings.Join(strings.Fields(fileText(t, "tpu-compile-hbm-used_easydel166_breakdown.txt")), " "), true, example2Breakdown},
		{"breakdown example 3 verbatim (vLLM)", example3, false, example3Breakdown},
		{"vLLM with headline", fileText(t, "tpu-compile-hbm-used_vllm_prefixed.txt"), true, example3Breakdown},
		{"errors_overview flattened", `XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G. Total hbm usage >= 49.34G: reserved 3.12M program unknown size arguments 49.34G`, true,
			grammar.Breakdown{Total: printed("49.34G"), Reserved: printed("3.12M"), Arguments: printed("49.34G")}},
		{"2019 form (flowpm#27 lines): unknown sizes, no Unpadded/Padded",
			"Compilation failure: Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm capacity by 25.74G.\n\nTotal hbm usage >= 41.74G:\n    reserved        528.00M\n    program          41.22G\n    arguments       unknown size\n\nOutput size unknown.\n\nProgram hbm requirement 41.22G:\n    reserved           4.0K\n    global            56.0K\n    HLO temp         41.19G (24.2% utilization, 0.7% fragmentation (293.84M))\n    overlays          34.61M\n", true,
			grammar.Breakdown{Total: printed("41.74G"), Reserved: printed("528.00M"), Program: printed("41.22G"), Temp: printed("41.19G"), TempFragmentation: printed("293.84M")}},
		{"XRT program-load breakdown (pytorch/xla#1735)", fileText(t, "tpu-runtime-program-load_xrt_breakdown.txt"), true, xrtBreakdown},
		{"GPU BufferAssignment dump (jax#13428)", fileText(t, "gpu-allocator-status_jax13428_bufferassignment.txt"), true, jax13428Breakdown},
		{"ROCm BufferAssignment dump", fileText(t, "gpu-platform-allocator_rocm_driver_then_status.txt"), true, rocmBreakdown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got grammar.Breakdown
			breakdown.ReadBreakdown(&got, flatten(tc.text))
			assert.Equal(t, tc.want, got)
			r, ok := Recognize(tc.text)
			require.Equal(t, tc.headline, ok, "a breakdown alone is not an OOM")
			if ok {
				assert.Equal(t, tc.want, r.Breakdown)
			}
		})
	}
}

func TestCulpritAndLargestInput(t *testing.T) {
	r, ok := Recognize(fileText(t, "gpu-allocator-status_jax13428_bufferassignment.txt"))
	require.True(t, ok)
	assert.Equal(t, 0, r.Breakdown.Culprit())
	assert.Equal(t, 1, r.Breakdown.LargestInput(), "the entry parameter is the program's input")
	assert.Equal(t, "/media/gccrcv/Data/Opensources/multinerf/internal/models.py:689", r.Breakdown.Allocations[0].Source())

	r, ok = Recognize(fileText(t, "tpu-compile-hbm-used_vllm_prefixed.txt"))
	require.True(t, ok)
	assert.Equal(t, -1, r.Breakdown.Culprit(), "params_and_buffers[...] is an input, not code")
	assert.Equal(t, 0, r.Breakdown.LargestInput())
}

func TestBreakdownAdvice(t *testing.T) {
	cases := []struct {
		file string
		want []string
	}{
		{"tpu-compile-hbm-used_jax7502_breakdown.txt", []string{
			"shard it over at least 5 devices", "4.13×",
			"made by `jit(t)/jit(_take_along_axis)/concatenate[ dimension=4 ]` at t.py:6",
			"32.0× expansion", "dimension 4 (size 4, minor-most) is padded to 128",
		}},
		{"tpu-compile-hbm-used_easydel166_breakdown.txt", []string{"at least 3 devices", "/home/air/workspace/EasyDel/src/easydel/modules/attention_module.py:1059"}},
		{"tpu-runtime-program-load_xrt_breakdown.txt", []string{"short by 2.55 GiB, with 6.08 GiB already allocated", "exhaustion, not fragmentation"}},
		{"gpu-allocator-status_jax13428_bufferassignment.txt", []string{"models.py:689", "largest program input in the list takes 384.00 KiB (f32[256,128,3])"}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			r, ok := Recognize(fileText(t, tc.file))
			require.True(t, ok)
			all := strings.Join(r.Remediation, "\n")
			for _, w := range tc.want {
				assert.Contains(t, all, w)
			}
		})
	}
}

// donationText is a TPU compile OOM whose arguments are as large as the
// program and share nothing with the output.
const donationText = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 40.00G of 31.25G hbm. Exceeded hbm capacity by 8.75G.\n\n" +
	"Total hbm usage >= 40.25G:\n    reserved        256.00M\n    program          20.00G\n    arguments        20.00G\n\nOutput size 20.00G; shares 0B with arguments.\n"

func TestDonationAdvice(t *testing.T) {
	r, ok := Recognize(donationText)
	require.True(t, ok)
	assert.Contains(t, strings.Join(r.Remediation, "\n"), "The arguments take 20.00 GiB and the output (20.00 GiB) shares none of it. Donate")
}

// Lines of a breakdown that arrive as records of their own (no multi-line
// recombination upstream) are not OOMs.
func TestBreakdownLinesAloneAreNotOOMs(t *testing.T) {
	for _, line := range []string{
		"  1. Size: 16.00G",
		"Total hbm usage >= 65.05G:",
		"    HLO temp         63.79G (100.0% utilization: Unpadded (63.58G) Padded (63.58G), 0.3% fragmentation (210.89M))",
		"Output size 0B; shares 0B with arguments.",
		"Program hbm requirement 63.80G:",
		"  Largest program allocations in hbm:",
		"     Extra memory due to padding: 15.50G (32.0x expansion)",
		"Peak buffers:",
		"BufferAssignment OOM Debugging.",
		"BufferAssignment stats:",
		"                 total allocation:   12.00MiB",
		"        Buffer 1:",
		"HBM capacity 8.00G:",
		"      Available after request:   -2.55G (  -2,735,391,744 bytes)",
		"(EngineCore_DP0 pid=896988)   1. Size: 384.00M",
		example3,
	} {
		_, ok := Recognize(line)
		assert.False(t, ok, "%q", line)
	}
}

func TestBreakdownEntriesBounded(t *testing.T) {
	entry := "  %d. Size: 1.00G\n     Operator: op_name=\"x\"\n     Shape: f32[1024,256]\n     Unpadded size: 1.00G\n     Allocation type: HLO temp\n     ==========================\n"
	text := "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 400.00G of 16.00G hbm. Exceeded hbm capacity by 384.00G.\n\n  Largest program allocations in hbm:\n\n" +
		strings.Repeat(strings.Replace(entry, "%d", "7", 1), 500)
	r, ok := Recognize(text)
	require.True(t, ok)
	assert.Len(t, r.Breakdown.Allocations, grammar.MaxAllocations)
}

// breakdownPieces are breakdown anchors repeated without end after a
// headline.
var breakdownPieces = []string{
	"Size: ", "1. Size: 1.00G ", "Total hbm usage >= ", "Largest program allocations in hbm: ", "Operator: op_name=\"",
	"Buffer 1: Size: 1.00MiB Shape: f32[8] ", "XLA label: ", "Top-of-Memory reserved: 1G ( ", "HLO temp 1G (",
}

const breakdownHead = "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used 2.00G of 1.00G hbm. Exceeded hbm capacity by 1.00G.\n"

// TestBreakdownPathological: endless breakdown anchors keep the list bounded
// and read like a few of them (BenchmarkBreakdownPathological measures the
// cost).
func TestBreakdownPathological(t *testing.T) {
	for _, p := range breakdownPieces {
		few, _ := Recognize(breakdownHead + strings.Repeat(p, 40))
		many, ok := Recognize(breakdownHead + strings.Repeat(p, 10000))
		if !ok || len(many.Breakdown.Allocations) > grammar.MaxAllocations || len(many.Breakdown.Allocations) < len(few.Breakdown.Allocations) {
			t.Errorf("%q: %d allocations from 10000 repetitions, %d from 40 (ok %v)", p, len(many.Breakdown.Allocations), len(few.Breakdown.Allocations), ok)
		}
	}
}

// BenchmarkBreakdownPathological: the ns/op of x40000 should be about 4x
// that of x10000 for every piece.
func BenchmarkBreakdownPathological(b *testing.B) {
	for _, p := range breakdownPieces {
		for _, n := range []int{10000, 40000} {
			text := breakdownHead + strings.Repeat(p, n)
			b.Run(fmt.Sprintf("%.24q/x%d", p, n), func(b *testing.B) {
				for range b.N {
					sinkReport, sinkBool = Recognize(text)
				}
			})
		}
	}
}
