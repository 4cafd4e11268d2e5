// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// TensorFlow families: a TensorFlow op could not allocate its output or
// scratch tensor. TensorFlow's GPU and TPU ops allocate through the same TSL
// BFC allocator as XLA (its "Allocator (GPU_0_bfc) ran out of memory" warning
// precedes them), and often only the final error reaches the application
// log, so they are tagged: code E0007, a category that names TensorFlow, and
// TensorFlow's own advice. Sources: tensorflow/core/framework/op_kernel.cc
// (allocate_tensor), common_runtime/executor.cc (old "tensor of shape" and
// "Compute status" lines), the eager "[Op:X]" suffix and graph-mode node
// lines.

const categoryTensorFlow = "TensorFlow Op: Tensor Allocation Failure"

var tensorflowFamilies = []family{
	{
		id:      "tensorflow-op-tensor-allocation",
		summary: "A TensorFlow op could not allocate a tensor; the size is the shape's element count times the dtype's size.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, category: categoryTensorFlow,
		anchor: "OOM when allocating ",
		expr: `OOM when allocating (?:temporary )?tensor(?: with shape ?\[(?P<shape>[^\][]*)\]| of shape \[(?P<old_shape>[^\][]*)\])?` +
			`(?: and type (?P<dtype>\w+))?(?: on (?P<tf_device>/[\w/:.\-]+))?(?: by allocator (?P<allocator>[\w.\-]+))?` +
			`(?: \[Op:(?P<op>\w+)\])?(?: \[\[\{\{node (?P<node>[^{}\s]+)\}\}\]\])?`,
		read:    readTensorFlowTensor,
		cues:    []cue{{text: "when allocating"}}, // what str(e) prints: the message alone
		advice:  adviceTraits{own: tensorFlowAdvice, ownAction: constAction(ActionShrinkFootprint)},
		example: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:Conv2D]`,
	},
	{
		id:      "tensorflow-op-gpu-scratch",
		summary: "A TensorFlow GPU kernel's Eigen scratch allocation failed; the op follows.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryTensorFlow,
		anchor: "Ran out of GPU memory when allocating ",
		expr:   `Ran out of GPU memory when allocating (?P<requested>\d+) bytes for (?P<op>[\w/.\-]+)`,
		read: func(r *Report, m match) bool {
			r.Instruction = m.group("op")
			return true
		},
		cues:    []cue{{text: "when allocating"}},
		advice:  adviceTraits{own: tensorFlowAdvice, ownAction: constAction(ActionShrinkFootprint)},
		example: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: Ran out of GPU memory when allocating 1073741824 bytes for MatMul`,
	},
	{
		id:      "tensorflow-gpu-eigen-allocator",
		summary: "TensorFlow's Eigen allocator for a GPU kernel could not allocate (a fatal log line: the process aborts).",
		kind:    logOnly, code: codeGeneric, phase: PhaseRuntime, backend: BackendGPU, category: categoryTensorFlow,
		anchor:  "EigenAllocator for GPU ran out of memory when allocating ",
		expr:    `EigenAllocator for GPU ran out of memory when allocating (?P<requested>\d+)`,
		cues:    []cue{{text: "when allocating"}},
		advice:  adviceTraits{own: tensorFlowAdvice, ownAction: constAction(ActionShrinkFootprint)},
		example: `F tensorflow/core/common_runtime/gpu/gpu_device.cc:132] EigenAllocator for GPU ran out of memory when allocating 1073741824. See error logs for more detailed info.`,
	},
	{
		id:      "tensorflow-op-allocation-failed",
		summary: "A TensorFlow op failed to allocate memory (no tensor shape printed); the op or node follows.",
		kind:    fatal, code: codeGeneric, phase: PhaseRuntime, category: categoryTensorFlow,
		anchor: "failed to allocate memory",
		expr:   `failed to allocate memory(?: \[Op:(?P<op>\w+)\]| \[\[\{\{node (?P<node>[^{}\s]+)\}\}\]\])?`,
		read: func(r *Report, m match) bool {
			// The phrase alone is too common: TensorFlow's own marks must be
			// there, the op or node it names right after it (what str(e)
			// prints: "failed to allocate memory [Op:AddV2]"), or the status
			// or exception that TensorFlow puts right before it
			// ("ResourceExhaustedError: ", "Resource exhausted: ", optionally
			// with a {{function_node ...}} tag).
			op := firstNonEmpty(m.group("op"), m.group("node"))
			if op == "" && !resourceExhaustedBefore(m.text[max(0, m.start()-tfStatusSpan):m.start()]) {
				return false
			}
			r.Instruction = op
			return true
		},
		advice:  adviceTraits{own: tensorFlowAdvice, ownAction: constAction(ActionShrinkFootprint)},
		example: `tensorflow.python.framework.errors_impl.ResourceExhaustedError: failed to allocate memory [Op:AddV2]`,
	},
}

// tfStatusSpan bounds how far before "failed to allocate memory" its status
// may start: the function_node tag between them is at most a device name long.
const tfStatusSpan = 200

// resourceExhaustedBefore reports whether before ends with a resource
// exhausted status or exception, and then at most a {{function_node ...}} tag.
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
