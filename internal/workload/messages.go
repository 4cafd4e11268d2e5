// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package workload

// Message is a real XLA out-of-memory message, as it reaches a log record.
type Message struct {
	// Family names the message shape (used as a benchmark name).
	Family string
	// Code is the OpenXLA catalog code the processor is expected to tag (GPU
	// and CPU allocator failures carry XLA's generic E0007 ResourceExhausted).
	Code string
	// MultiLine is true for a whole multi-line record (a breakdown or a dump).
	MultiLine bool
	// Text is the record body.
	Text string
}

// OOMMessages are the OOM records the generator mixes into ordinary traffic,
// in the shapes XLA prints them (docs/message-formats.md describes each
// family). The first entries are one-liners; the last ones are whole
// multi-line records.
var OOMMessages = []Message{
	{
		Family: "tpu-compile-hbm", Code: "E1000",
		Text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 31.91G of 31.25G hbm. Exceeded hbm capacity by 681.08M.`,
	},
	{
		Family: "tpu-buffer-E0100", Code: "E0100",
		Text: `ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)`,
	},
	{
		Family: "tpu-program-E0101", Code: "E0101",
		Text: `XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well).`,
	},
	{
		Family: "gpu-bfc", Code: "E0007",
		Text: `E0314 21:29:02.854727  957629 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4831838208 bytes. [tf-allocator-allocation-error='']`,
	},
	{
		Family: "gpu-platform", Code: "E0007",
		Text: `2024-06-24 17:01:13.936447: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2732] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Failed to allocate request for 154.06GiB (165425291480B) on device ordinal 0`,
	},
	{
		Family: "cpu", Code: "E0007",
		Text: `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 41246000000 bytes.`,
	},
	{
		Family: "tpu-breakdown", Code: "E1000", MultiLine: true,
		Text: `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 63.80G of 30.75G hbm. Exceeded hbm capacity by 33.05G.

Total hbm usage >= 65.05G:
    reserved          1.25G
    program          63.80G
    arguments            0B

Output size 0B; shares 0B with arguments.

Program hbm requirement 63.80G:
    global            1.14M
    scoped            4.56M
    HLO temp         63.79G (100.0% utilization: Unpadded (63.58G) Padded (63.58G), 0.3% fragmentation (210.89M))

  Largest program allocations in hbm:

  1. Size: 2.00G
     Operator: op_name="jit(casual_language_model_train_step)/jit(main)/jvp(FlaxFalconForCausalLMModule)/transformer/h/0/self_attention/...qhd,...khd->...hqk/dot_general[dimension_numbers=(((3,), (3,)), ((0, 2), (0, 2))) precision=(Precision.DEFAULT, Precision.DEFAULT) preferred_element_type=bfloat16]" source_file="/home/air/workspace/EasyDel/src/easydel/modules/attention_module.py" source_line=1059
     Shape: f32[32,4096,4096]{1,2,0:T(8,128)}
     Unpadded size: 2.00G
     XLA label: fusion.1265.remat3 = fusion(custom-call.224, custom-call.241, custom-call.22), kind=kOutput, calls=fused_computation.957.clone.clone.clone
     Allocation type: HLO temp
     ==========================
`,
	},
	{
		Family: "gpu-bufferassignment", Code: "E0007", MultiLine: true,
		Text: `jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.
BufferAssignment OOM Debugging.
BufferAssignment stats:
             parameter allocation:    6.00MiB
              constant allocation:         0B
        maybe_live_out allocation:    6.00MiB
     preallocated temp allocation:         0B
                 total allocation:   12.00MiB
              total fragmentation:         0B (0.00%)
Peak buffers:
        Buffer 1:
                Size: 6.00MiB
                Operator: op_name="jit(concatenate)/jit(main)/concatenate[dimension=0]" source_file="/media/gccrcv/Data/Opensources/multinerf/internal/models.py" source_line=689
                XLA Label: concatenate
                Shape: f32[4096,128,3]
                ==========================

        Buffer 2:
                Size: 384.0KiB
                Entry Parameter Subshape: f32[256,128,3]
                ==========================
`,
	},
}

// OneLineOOM returns the one-line OOM messages.
func OneLineOOM() []Message { return filter(false) }

// MultiLineOOM returns the whole multi-line OOM records.
func MultiLineOOM() []Message { return filter(true) }

func filter(multi bool) []Message {
	var out []Message
	for _, m := range OOMMessages {
		if m.MultiLine == multi {
			out = append(out, m)
		}
	}
	return out
}
