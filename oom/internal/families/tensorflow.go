// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package families

import (
	"cmp"
	"math/bits"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// dtypeBytes is the element size of each fixed-size dtype as DataTypeString prints it.
var dtypeBytes = map[string]int64{
	"float": 4, "half": 2, "bfloat16": 2, "double": 8,
	"int8": 1, "uint8": 1, "bool": 1, "qint8": 1, "quint8": 1,
	"int16": 2, "uint16": 2, "qint16": 2, "quint16": 2,
	"int32": 4, "uint32": 4, "qint32": 4,
	"int64": 8, "uint64": 8,
	"complex64": 8, "complex128": 16,
}

// TensorBytes returns the byte size of a tensor of shape ("" for a scalar) and dtype; unknown for an unknown
// dtype, a non-numeric dimension or an overflow.
func TensorBytes(shape, dtype string) grammar.Size {
	elem, ok := dtypeBytes[dtype]
	if !ok {
		return grammar.Size{}
	}
	n := uint64(elem)
	for d := range strings.SplitSeq(shape, ",") {
		d = strings.TrimSpace(d)
		if d == "" && shape == "" {
			break // a scalar: one element
		}
		if d == "" || logheader.DigitsEnd(d, 0) != len(d) || len(d) > 19 {
			return grammar.Size{}
		}
		v := uint64(logtext.Atoi(d))
		hi, lo := bits.Mul64(n, v)
		if hi != 0 || lo > 1<<63-1 {
			return grammar.Size{}
		}
		n = lo
	}
	return grammar.KnownSize(int64(n))
}

// tfDevice reads a TensorFlow device name (".../device:GPU:0", "/gpu:0") as the Report has it elsewhere: a GPU's
// ordinal, a TPU as "TPU:0", none for CPU.
func tfDevice(name string) (backend, device string) {
	i := strings.LastIndex(name, "device:")
	var t string
	if i >= 0 {
		t = name[i+len("device:"):]
	} else if j := strings.LastIndexByte(name, '/'); j >= 0 {
		t = strings.ToUpper(name[j+1:]) // "/gpu:0"
	} else {
		return "", ""
	}
	kind, ord, ok := strings.Cut(t, ":")
	if !ok || ord == "" || logheader.DigitsEnd(ord, 0) != len(ord) {
		ord = ""
	}
	switch kind {
	case "GPU":
		return grammar.BackendGPU, ord
	case "TPU":
		if ord == "" {
			return grammar.BackendTPU, ""
		}
		return grammar.BackendTPU, "TPU:" + ord
	case "CPU":
		return grammar.BackendCPU, ""
	}
	return "", ""
}

// readTensorFlowTensor fills r from the tensor allocation failure's groups.
func readTensorFlowTensor(r *grammar.Report, m grammar.Match) bool {
	shape, hasShape := m.Group("shape"), m.Took("shape")
	if !hasShape {
		shape, hasShape = m.Group("old_shape"), m.Took("old_shape")
	}
	// The device follows the dtype in the current wording, so a dtype ending the text may be cut ("float" of float8).
	if hasShape && (!m.Took("shape") || !grammar.CutAtEndOf(m, "dtype")) {
		r.Requested = TensorBytes(shape, m.Group("dtype"))
	}
	if dev := m.Group("tf_device"); dev != "" {
		r.Backend, r.Device = tfDevice(dev)
	}
	if a := strings.ToLower(m.Group("allocator")); a == "cpu" || strings.Contains(a, "host") || strings.Contains(a, "cpu") {
		r.MemorySpace = "host"
	}
	r.Instruction = cmp.Or(m.Group("op"), m.Group("node"))
	return true
}

// tensorFlowAdvice gives TensorFlow's own switches, not JAX's.
func tensorFlowAdvice(r *grammar.Report) []string {
	var a grammar.Advice
	if r.Requested.Known {
		a.Add("The op needed a ", grammar.HumanSize(r.Requested), " tensor: lower the batch size (or the sequence length / image size) that sets its shape.")
	} else {
		a.Add("Lower the batch size (or the sequence length / image size) that sets the failing tensor's shape.")
	}
	a.Add("To see which tensors hold the memory when it fails, run with report_tensor_allocations_upon_oom: tf.compat.v1.RunOptions(report_tensor_allocations_upon_oom=True) in a session run, or in Keras model.compile(..., options=...) through the same RunOptions.")
	if r.MemorySpace == "host" {
		a.Add("This is host memory: reduce what the input pipeline and the CPU ops keep in RAM (prefetch and shuffle buffers, cached datasets), or raise the process's memory limit.")
		return a
	}
	a.Add("Keep large activations in 16-bit: tf.keras.mixed_precision.set_global_policy('mixed_float16') (or 'mixed_bfloat16' on TPU).")
	a.Add("If other processes share the GPU, let TensorFlow grow its pool on demand instead of reserving it (tf.config.experimental.set_memory_growth(gpu, True)); if free memory is fragmented, TF_GPU_ALLOCATOR=cuda_malloc_async.")
	a.Add("Free what the model does not need on the device: clear old models (tf.keras.backend.clear_session()), and recompute activations in large blocks (tf.recompute_grad).")
	return a
}
