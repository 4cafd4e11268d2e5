// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"strings"
)

// Knob is a setting or API the advice names; each framework has its own (docs/advice-frameworks.md).
type Knob uint8

// The knobs. A noun knob reads as a noun phrase in any sentence; a list knob only inside parentheses; a clause
// knob is a whole clause, empty where the framework has no such setting.
const (
	KnobPoolShare        Knob = iota + 1 // noun: the setting of how much of the GPU the pool may take
	KnobPoolShareAtLeast                 // clause: raise it to at least a fraction (args: the fraction, MiB)
	KnobMoreShare                        // clause, a sentence's start: give the pool more of the GPU
	KnobGrowOnDemand                     // noun: grow the pool on demand instead of reserving it at start-up
	KnobPreallocate                      // list: reserve the pool at start-up
	KnobAsyncAllocator                   // list: the CUDA async allocator
	KnobExactAllocator                   // clause: " or" no pool, allocation exactly on demand
	KnobRemat                            // noun: recompute activations instead of keeping them
	KnobLowPrecision                     // noun: 16-bit types
	KnobDonate                           // clause, a sentence's start: let outputs reuse inputs' memory
	KnobDonateInList                     // clause: ", " the same as an item of a list
	KnobDelete                           // list: free an array now
	KnobLiveArrays                       // clause: "what holds memory, " as an item of a list
	KnobName                             // noun: the framework's name
	knobEnd
)

// knobText is one knob in each framework's words, and for a program whose framework is unknown. "{1}" and
// "{2}" stand for the reference's arguments.
type knobText struct{ jax, tensorflow, pytorchXLA, unknown string }

// knobs is the one table the advice reads: steps hold references to its rows, rendered per framework. The JAX
// texts of PoolShare, GrowOnDemand, Preallocate, AsyncAllocator and Name are the bare names, so that a
// family's text written for JAX reads them as references (KnobsOf).
var knobs = [knobEnd]knobText{
	KnobPoolShare: {
		jax:        "XLA_PYTHON_CLIENT_MEM_FRACTION",
		tensorflow: "a virtual device memory_limit (tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=MB)]))",
		pytorchXLA: "PJRT_ALLOCATOR_FRACTION",
		unknown:    "the pool's share of the GPU (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION; TensorFlow: a virtual device memory_limit; PyTorch/XLA: PJRT_ALLOCATOR_FRACTION)",
	},
	KnobPoolShareAtLeast: {
		jax:        "raise XLA_PYTHON_CLIENT_MEM_FRACTION to at least {1} (default .75)",
		tensorflow: "set a virtual device memory_limit of at least {2} MB (tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit={2})]))",
		pytorchXLA: "raise PJRT_ALLOCATOR_FRACTION to at least {1} (default .75)",
		unknown:    "give the pool at least {1} of the GPU (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION={1}; TensorFlow: a virtual device memory_limit of {2} MB; PyTorch/XLA: PJRT_ALLOCATOR_FRACTION={1})",
	},
	KnobMoreShare: {
		jax:        "Give XLA more of the GPU with XLA_PYTHON_CLIENT_MEM_FRACTION (default .75, e.g. .90)",
		tensorflow: "TensorFlow's pool takes the memory free at start-up unless a virtual device memory_limit (tf.config.LogicalDeviceConfiguration) or per_process_gpu_memory_fraction caps it: raise or remove that cap",
		pytorchXLA: "Give XLA more of the GPU with PJRT_ALLOCATOR_FRACTION (default .75, e.g. .90)",
		unknown:    "Give the pool more of the GPU (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION, default .75, e.g. .90; PyTorch/XLA: PJRT_ALLOCATOR_FRACTION, default .75; TensorFlow: raise or remove a virtual device memory_limit)",
	},
	KnobGrowOnDemand: {
		jax:        "XLA_PYTHON_CLIENT_PREALLOCATE=false",
		tensorflow: "memory growth (tf.config.experimental.set_memory_growth(gpu, True), or TF_FORCE_GPU_ALLOW_GROWTH=true)",
		pytorchXLA: "PJRT_ALLOCATOR_PREALLOCATE=false",
		unknown:    "a pool grown on demand (JAX: XLA_PYTHON_CLIENT_PREALLOCATE=false; TensorFlow: tf.config.experimental.set_memory_growth(gpu, True) or TF_FORCE_GPU_ALLOW_GROWTH=true; PyTorch/XLA: PJRT_ALLOCATOR_PREALLOCATE=false)",
	},
	KnobPreallocate: {
		jax:        "XLA_PYTHON_CLIENT_PREALLOCATE=true",
		tensorflow: "no memory growth: the default, with TF_FORCE_GPU_ALLOW_GROWTH unset",
		pytorchXLA: "PJRT_ALLOCATOR_PREALLOCATE=true",
		unknown:    "JAX: XLA_PYTHON_CLIENT_PREALLOCATE=true; TensorFlow: no memory growth, the default; PyTorch/XLA: PJRT_ALLOCATOR_PREALLOCATE=true",
	},
	KnobAsyncAllocator: {
		jax:        "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async",
		tensorflow: "TF_GPU_ALLOCATOR=cuda_malloc_async",
		pytorchXLA: "PJRT_ALLOCATOR_CUDA_ASYNC=1",
		unknown:    "JAX: XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async; TensorFlow: TF_GPU_ALLOCATOR=cuda_malloc_async; PyTorch/XLA: PJRT_ALLOCATOR_CUDA_ASYNC=1",
	},
	KnobExactAllocator: {
		jax:     " or, to allocate exactly on demand, XLA_PYTHON_CLIENT_ALLOCATOR=platform",
		unknown: " or, to allocate exactly on demand, XLA_PYTHON_CLIENT_ALLOCATOR=platform (JAX only)",
	},
	KnobRemat: {
		jax:        "jax.checkpoint (remat)",
		tensorflow: "tf.recompute_grad",
		pytorchXLA: "torch_xla.utils.checkpoint (or torch.utils.checkpoint)",
		unknown:    "rematerialization (JAX: jax.checkpoint; TensorFlow: tf.recompute_grad; PyTorch/XLA: torch_xla.utils.checkpoint)",
	},
	KnobLowPrecision: {
		jax:        "bfloat16",
		tensorflow: `mixed precision (tf.keras.mixed_precision.set_global_policy("mixed_float16"), "mixed_bfloat16" on TPU)`,
		pytorchXLA: `bfloat16 autocast (torch.autocast("xla", dtype=torch.bfloat16))`,
		unknown:    `16-bit types (JAX: bfloat16; TensorFlow: tf.keras.mixed_precision.set_global_policy("mixed_float16"); PyTorch/XLA: torch.autocast("xla", dtype=torch.bfloat16))`,
	},
	KnobDonate: {
		jax:        "Donate inputs not needed after the call (jax.jit(..., donate_argnums=...)) so outputs reuse their memory",
		tensorflow: "Drop references to tensors not needed after the step so that TensorFlow frees them",
		pytorchXLA: "Drop references to tensors not needed after the step so that PyTorch/XLA frees them",
		unknown:    "Donate inputs not needed after the call so outputs reuse their memory (JAX: jax.jit(..., donate_argnums=...); TensorFlow, PyTorch/XLA: drop references to them)",
	},
	KnobDonateInList: {
		jax:     ", donate_argnums for inputs not needed after the step",
		unknown: ", donate_argnums (JAX) for inputs not needed after the step",
	},
	KnobDelete: {
		jax:        "jax.Array.delete(), drop references",
		tensorflow: "drop references",
		pytorchXLA: "drop references",
		unknown:    "drop references; JAX: jax.Array.delete() too; TensorFlow, PyTorch/XLA: del the tensors",
	},
	KnobLiveArrays: {
		jax:        "jax.live_arrays(), ",
		tensorflow: "tf.config.experimental.get_memory_info, ",
		pytorchXLA: "xm.get_memory_info(), ",
		unknown:    "jax.live_arrays() in JAX, tf.config.experimental.get_memory_info in TensorFlow, xm.get_memory_info() in PyTorch/XLA, ",
	},
	KnobName: {jax: "JAX", tensorflow: "TensorFlow", pytorchXLA: "PyTorch/XLA", unknown: "the framework"},
}

// knobMark opens and closes a knob reference in an advice step's source: mark, the knob, its arguments
// separated by knobArg, mark. No advice text holds the byte.
const (
	knobMark = '\x1f'
	knobArg  = '\x1e'
)

// KnobRef is a reference to k, with its arguments, for an advice step's source.
func KnobRef(k Knob, args ...string) string {
	var b strings.Builder
	b.WriteByte(knobMark)
	b.WriteByte(byte(k))
	for i, a := range args {
		if i > 0 {
			b.WriteByte(knobArg)
		}
		b.WriteString(a)
	}
	b.WriteByte(knobMark)
	return b.String()
}

// HasKnob reports whether an advice step's source holds a knob reference.
func HasKnob(source string) bool { return strings.IndexByte(source, knobMark) >= 0 }

// RenderKnobs renders an advice step's source for framework ("" or another: unknown); a source without a
// reference is returned as is, without copying.
func RenderKnobs(source, framework string) string {
	if !HasKnob(source) {
		return source
	}
	var b strings.Builder
	b.Grow(eachPart(source, framework, func(s string) { b.WriteString(s) }, true))
	eachPart(source, framework, func(s string) { b.WriteString(s) }, false)
	return b.String()
}

// eachPart gives the rendered source's parts to write, in order, or when measuring only returns their length.
func eachPart(source, framework string, write func(string), measure bool) int {
	n := 0
	out := func(s string) {
		if measure {
			n += len(s)
		} else {
			write(s)
		}
	}
	for {
		i := strings.IndexByte(source, knobMark)
		end := -1
		if i >= 0 && i+2 < len(source) {
			end = strings.IndexByte(source[i+2:], knobMark)
		}
		if end < 0 { // none left, or cut: the rest as it is
			out(source)
			return n
		}
		out(source[:i])
		eachKnobPart(Knob(source[i+1]), source[i+2:i+2+end], framework, out)
		source = source[i+3+end:]
	}
}

// eachKnobPart gives knob k's text for framework in parts, its "{1}" and "{2}" filled from args.
func eachKnobPart(k Knob, args, framework string, out func(string)) {
	if k == 0 || k >= knobEnd {
		return
	}
	t := KnobText(k, framework)
	arg1, arg2, _ := strings.Cut(args, string(knobArg))
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 || i+2 >= len(t) || t[i+2] != '}' || (t[i+1] != '1' && t[i+1] != '2') {
			out(t)
			return
		}
		out(t[:i])
		if t[i+1] == '1' {
			out(arg1)
		} else {
			out(arg2)
		}
		t = t[i+3:]
	}
}

// KnobText is knob k's text for framework, its "{1}", "{2}" not filled.
func KnobText(k Knob, framework string) string {
	t := &knobs[k]
	switch framework {
	case FrameworkJAX:
		return t.jax
	case FrameworkTensorFlow:
		return t.tensorflow
	case FrameworkPyTorchXLA:
		return t.pytorchXLA
	}
	return t.unknown
}

// KnobTexts lists every knob's texts, for docs and tests: JAX, TensorFlow, PyTorch/XLA, unknown.
func KnobTexts() [][4]string {
	out := make([][4]string, 0, knobEnd-1)
	for k := Knob(1); k < knobEnd; k++ {
		t := &knobs[k]
		out = append(out, [4]string{t.jax, t.tensorflow, t.pytorchXLA, t.unknown})
	}
	return out
}
