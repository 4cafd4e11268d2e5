// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"cmp"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// TensorFlow families: an op could not allocate a tensor through the BFC allocator XLA shares; often only this
// reaches the log (tensorflow/core/framework/op_kernel.cc, common_runtime/executor.cc).

// CategoryTensorFlow is the category of a TensorFlow op's allocation failure.
const CategoryTensorFlow = "TensorFlow Op: Tensor Allocation Failure"

var tensorflowFamilies = []grammar.Family{
	{
		ID:      "tensorflow-op-tensor-allocation",
		Summary: "A TensorFlow op could not allocate a tensor; the size is the shape's element count times the dtype's size.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Category: CategoryTensorFlow,
		Anchor: "OOM when allocating ",
		Expr: `OOM when allocating (?:temporary )?tensor(?: with shape ?\[(?P<shape>[^\][]*)\]| of shape \[(?P<old_shape>[^\][]*)\])?` +
			`(?: and type (?P<dtype>\w+))?(?: on (?P<tf_device>/[\w/:.\-]+))?(?: by allocator (?P<allocator>[\w.\-]+))?` +
			`(?: \[Op:(?P<op>\w+)\])?(?: \[\[\{\{node (?P<node>[^{}\s]+)\}\}\]\])?`,
		Read:    readTensorFlowTensor,
		Cues:    []logtext.Cue{{Text: "when allocating"}}, // what str(e) prints: the message alone
		Advice:  grammar.AdviceTraits{Own: tensorFlowAdvice, OwnAction: grammar.ConstAction(grammar.ActionShrinkFootprint)},
		Example: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:Conv2D]`,
	},
	{
		ID:      "tensorflow-op-gpu-scratch",
		Summary: "A TensorFlow GPU kernel's Eigen scratch allocation failed; the op follows.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: CategoryTensorFlow,
		Anchor: "Ran out of GPU memory when allocating ",
		Expr:   `Ran out of GPU memory when allocating (?P<requested>\d+) bytes for (?P<op>[\w/.\-]+)`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			r.Instruction = m.Group("op")
			return true
		},
		Cues:    []logtext.Cue{{Text: "when allocating"}},
		Advice:  grammar.AdviceTraits{Own: tensorFlowAdvice, OwnAction: grammar.ConstAction(grammar.ActionShrinkFootprint)},
		Example: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: Ran out of GPU memory when allocating 1073741824 bytes for MatMul`,
	},
	{
		ID:      "tensorflow-gpu-eigen-allocator",
		Summary: "TensorFlow's Eigen allocator for a GPU kernel could not allocate (a fatal log line: the process aborts).",
		Kind:    grammar.LogOnly, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Backend: grammar.BackendGPU, Category: CategoryTensorFlow,
		Anchor:  "EigenAllocator for GPU ran out of memory when allocating ",
		Expr:    `EigenAllocator for GPU ran out of memory when allocating (?P<requested>\d+)`,
		Cues:    []logtext.Cue{{Text: "when allocating"}},
		Advice:  grammar.AdviceTraits{Own: tensorFlowAdvice, OwnAction: grammar.ConstAction(grammar.ActionShrinkFootprint)},
		Example: `F tensorflow/core/common_runtime/gpu/gpu_device.cc:132] EigenAllocator for GPU ran out of memory when allocating 1073741824. See error logs for more detailed info.`,
	},
	{
		ID:      "tensorflow-op-allocation-failed",
		Summary: "A TensorFlow op failed to allocate memory (no tensor shape printed); the op or node follows.",
		Kind:    grammar.Fatal, Code: grammar.CodeGeneric, Phase: grammar.PhaseRuntime, Category: CategoryTensorFlow,
		Anchor: "failed to allocate memory",
		Expr:   `failed to allocate memory(?: \[Op:(?P<op>\w+)\]| \[\[\{\{node (?P<node>[^{}\s]+)\}\}\]\])?`,
		Read: func(r *grammar.Report, m grammar.Match) bool {
			// The phrase alone is too common: the op must follow it, or TensorFlow's status precede it.
			op := cmp.Or(m.Group("op"), m.Group("node"))
			if op == "" && !resourceExhaustedBefore(m.Text[max(0, m.Start()-tfStatusSpan):m.Start()]) {
				return false
			}
			r.Instruction = op
			return true
		},
		Advice:  grammar.AdviceTraits{Own: tensorFlowAdvice, OwnAction: grammar.ConstAction(grammar.ActionShrinkFootprint)},
		Example: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: failed to allocate memory [Op:AddV2]`,
	},
}

// tfStatusSpan bounds how far before the message its status may start (a function_node tag between).
const tfStatusSpan = 200

// resourceExhaustedBefore: before ends with a resource-exhausted status, then at most a {{function_node}} tag.
func resourceExhaustedBefore(before string) bool {
	before = strings.TrimRight(before, " ")
	if strings.HasSuffix(before, "}}") {
		i := strings.LastIndex(before, "{{function_node ")
		if i < 0 {
			return false
		}
		before = strings.TrimRight(before[:i], " ")
	}
	before = strings.TrimSuffix(before, ":")
	return strings.HasSuffix(before, "ResourceExhaustedError") || strings.HasSuffix(before, "RESOURCE_EXHAUSTED") ||
		strings.HasSuffix(before, "Resource exhausted")
}
