// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package breakdown

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// message is a real record of the oom package's message fixtures, flattened
// as the recogniser reads it.
func message(t *testing.T, name string) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "messages", name))
	require.NoError(t, err)
	return logtext.WrapVocabulary(nil).Flatten(string(body))
}

// printed is a size as printed (base 1024, rounded to the byte).
func printed(t *testing.T, tok string) grammar.Size {
	s := grammar.ParseSizeToken(tok)
	require.True(t, s.Known, tok)
	return s
}

func TestReadBreakdownTPU(t *testing.T) {
	var b grammar.Breakdown
	ReadBreakdown(&b, message(t, "tpu-compile-hbm-used_jax7502_breakdown.txt"))
	assert.Equal(t, grammar.Breakdown{
		Total: printed(t, "64.52G"), Reserved: printed(t, "530.00M"), Program: printed(t, "64.00G"), Arguments: printed(t, "0B"),
		Output: printed(t, "0B"), OutputShared: printed(t, "0B"), Temp: printed(t, "64.00G"), TempFragmentation: printed(t, "0B"),
		// HLO temp "Unpadded (896.00M) Padded (64.00G)"
		Padding: grammar.KnownSize(printed(t, "64.00G").Bytes - printed(t, "896.00M").Bytes),
		Allocations: []grammar.Allocation{{
			Size: printed(t, "16.00G"), OpType: "concatenate", OpName: "jit(t)/jit(_take_along_axis)/concatenate[ dimension=4 ]",
			SourceFile: "t.py", SourceLine: 6, Shape: "s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}",
			Unpadded: printed(t, "512.00M"), Padding: printed(t, "15.50G"), Expansion: 32,
			Label: "%fusion.1 = s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)} fusion(s32[2048,1,128,128,1]{4,3,2,0,1:T(8,128)} %iota.5.clone2.remat_uncompressed, s32[2048,1,128,128,1]{4,3,2,0,1:T(8,128)} %iota.4.clone2.remat_uncompressed, s32[2048,1,128,128,1]{4,3,2,0,1:T(8,128)}...",
			Type:  "HLO temp",
		}},
	}, b)
	assert.Equal(t, 0, b.Culprit())
	assert.Equal(t, -1, b.LargestInput())
	assert.Equal(t, "t.py:6", b.Allocations[0].Source())
}

// The vLLM record prefixes every line; its only allocation is an input.
func TestReadBreakdownPrefixedInput(t *testing.T) {
	var b grammar.Breakdown
	ReadBreakdown(&b, message(t, "tpu-compile-hbm-used_vllm_prefixed.txt"))
	assert.Equal(t, printed(t, "101.25G"), b.Total)
	assert.Equal(t, printed(t, "60.29G"), b.OutputShared)
	assert.Equal(t, printed(t, "23.87M"), b.TempFragmentation)
	// "Unpadded (15.81G) Padded (15.84G)"
	assert.Equal(t, grammar.KnownSize(printed(t, "15.84G").Bytes-printed(t, "15.81G").Bytes), b.Padding)
	require.Len(t, b.Allocations, 1)
	a := b.Allocations[0]
	assert.Equal(t, "params_and_buffers['vllm_model.model.layers.1.mlp.experts.w13_weight']", a.OpName)
	assert.Equal(t, 1.1, a.Expansion)
	assert.True(t, a.IsInput())
	assert.Equal(t, -1, b.Culprit(), "an input is not code to fix")
	assert.Equal(t, 0, b.LargestInput())
	assert.Empty(t, a.Source())
}

func TestReadBreakdownGPU(t *testing.T) {
	var b grammar.Breakdown
	ReadBreakdown(&b, message(t, "gpu-allocator-status_jax13428_bufferassignment.txt"))
	assert.Equal(t, grammar.Breakdown{
		Total: printed(t, "12.00MiB"), Arguments: printed(t, "6.00MiB"), Output: printed(t, "6.00MiB"), Temp: printed(t, "0B"), Fragmentation: printed(t, "0B"),
		Allocations: []grammar.Allocation{
			{Size: printed(t, "6.00MiB"), OpName: "jit(concatenate)/jit(main)/concatenate[dimension=0]",
				SourceFile: "/media/gccrcv/Data/Opensources/multinerf/internal/models.py", SourceLine: 689,
				Shape: "f32[4096,128,3]", Label: "concatenate"},
			{Size: printed(t, "384.0KiB"), Shape: "f32[256,128,3]", Type: "entry parameter"},
		},
	}, b)
	assert.Equal(t, 0, b.Culprit())
	assert.Equal(t, 1, b.LargestInput(), "the entry parameter is the program's input")

	b = grammar.Breakdown{}
	ReadBreakdown(&b, message(t, "gpu-platform-allocator_rocm_driver_then_status.txt"))
	assert.Equal(t, grammar.Breakdown{
		Total: printed(t, "192.84GiB"), Arguments: printed(t, "10.04GiB"), Output: printed(t, "28.74GiB"), Temp: printed(t, "154.06GiB"),
		TempFragmentation: printed(t, "24.75MiB"), Fragmentation: printed(t, "9.71GiB"),
		Allocations: []grammar.Allocation{{Size: printed(t, "38.10GiB"), OpName: "jit(apply_fn)/jit(main)/alphafold/alphafold_iteration/while/body/evoformer/__la..."}},
	}, b)
}

// XRT's program load prints exact figures beside the rounded ones.
func TestReadBreakdownXRT(t *testing.T) {
	var b grammar.Breakdown
	ReadBreakdown(&b, message(t, "tpu-runtime-program-load_xrt_breakdown.txt"))
	assert.Equal(t, grammar.Breakdown{
		Reserved: grammar.KnownSize(554696704), Allocated: grammar.KnownSize(6532939776), Program: grammar.KnownSize(4237689856),
		AvailableAfter: grammar.KnownSize(-2735391744),
	}, b)
}

// Short forms: a flattened errors_overview headline (an unknown program
// size) and the 2019 TF form (unknown arguments and output).
func TestReadBreakdownShortForms(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       grammar.Breakdown
	}{
		{"errors_overview", `XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G. Total hbm usage >= 49.34G: reserved 3.12M program unknown size arguments 49.34G`,
			grammar.Breakdown{Total: printed(t, "49.34G"), Reserved: printed(t, "3.12M"), Arguments: printed(t, "49.34G")}},
		{"2019 (flowpm#27)", "Compilation failure: Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm capacity by 25.74G.\n\nTotal hbm usage >= 41.74G:\n    reserved        528.00M\n    program          41.22G\n    arguments       unknown size\n\nOutput size unknown.\n\nProgram hbm requirement 41.22G:\n    reserved           4.0K\n    global            56.0K\n    HLO temp         41.19G (24.2% utilization, 0.7% fragmentation (293.84M))\n    overlays          34.61M\n",
			grammar.Breakdown{Total: printed(t, "41.74G"), Reserved: printed(t, "528.00M"), Program: printed(t, "41.22G"), Temp: printed(t, "41.19G"), TempFragmentation: printed(t, "293.84M")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			flat := logtext.WrapVocabulary(nil).Flatten(c.text)
			require.True(t, HasBreakdown(flat))
			var b grammar.Breakdown
			ReadBreakdown(&b, flat)
			assert.Equal(t, c.want, b)
		})
	}
}

// A headline without a breakdown reads none.
func TestNoBreakdown(t *testing.T) {
	flat := `RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.`
	assert.False(t, HasBreakdown(flat))
	var b grammar.Breakdown
	ReadBreakdown(&b, flat)
	assert.Equal(t, grammar.Breakdown{}, b)
}

// The list is bounded however many entries the record repeats.
func TestBreakdownEntriesBounded(t *testing.T) {
	entry := "  7. Size: 1.00G\n     Operator: op_name=\"x\"\n     Shape: f32[1024,256]\n     Unpadded size: 1.00G\n     Allocation type: HLO temp\n     ==========================\n"
	flat := logtext.WrapVocabulary(nil).Flatten("  Largest program allocations in hbm:\n\n" + strings.Repeat(entry, 500))
	var b grammar.Breakdown
	ReadBreakdown(&b, flat)
	require.Len(t, b.Allocations, grammar.MaxAllocations)
	assert.Equal(t, grammar.Allocation{Size: printed(t, "1.00G"), OpName: "x", Shape: "f32[1024,256]", Unpadded: printed(t, "1.00G"), Type: "HLO temp"}, b.Allocations[99])
}
