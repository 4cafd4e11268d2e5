// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import "strings"

// Frameworks: the program above XLA (Report.Framework); "" when the text does not show it.
const (
	FrameworkTensorFlow = "tensorflow" // TensorFlow and Keras on TensorFlow
	FrameworkJAX        = "jax"
	FrameworkPyTorchXLA = "pytorch_xla"
)

// How strongly a text shows its framework, weakest first: a log line may come from a library the program only
// imports (TensorFlow's start-up lines in a JAX job reading tf.data), the raised exception cannot.
const (
	FrameworkByLog       = 1 // a log line's source path or a message only that framework prints
	FrameworkByFrame     = 2 // a traceback frame or module of the framework
	FrameworkByException = 3 // the type of the exception the program raised
)

type frameworkMark struct {
	text, framework string
	strength        int
	pathStart       bool // the mark must start a source path: "tensorflow/core/" but not "org_tensorflow/tensorflow/core/"
}

// markGates are words that the marks hold (gateOf): a text without a gate's word has none of its marks, so
// most marks cost no scan of their own.
var markGates = [...]string{"Error", "jax", "tensorflow", "torch_xla", "keras", "external/local_", "Created "}

func gateOf(mark string) int {
	for g, w := range markGates {
		if strings.Contains(mark, w) {
			return g
		}
	}
	return -1
}

// frameworkMarks are tried in order; of equal strength the first found wins, so the more specific mark comes
// first (Keras 3's JAX backend before Keras, PyTorch/XLA's RuntimeError before any path).
var frameworkMarks = [...]frameworkMark{
	{"ResourceExhaustedError", FrameworkTensorFlow, FrameworkByException, false}, // tf.errors, errors_impl
	{"tensorflow.python.framework.errors_impl.", FrameworkTensorFlow, FrameworkByException, false},
	{"tf.errors.", FrameworkTensorFlow, FrameworkByException, false},
	{"XlaRuntimeError", FrameworkJAX, FrameworkByException, false}, // jaxlib.xla_extension, jaxlib._jax
	{"JaxRuntimeError", FrameworkJAX, FrameworkByException, false},
	{"torch_xla.runtime.RuntimeError", FrameworkPyTorchXLA, FrameworkByException, false},
	{"RuntimeError: Bad StatusOr access", FrameworkPyTorchXLA, FrameworkByException, false}, // XLA's status, re-raised

	{"torch_xla", FrameworkPyTorchXLA, FrameworkByFrame, false}, // frames, modules, torch_xla/csrc sources
	{"/keras/src/backend/jax/", FrameworkJAX, FrameworkByFrame, false},
	{"/keras/src/backend/tensorflow/", FrameworkTensorFlow, FrameworkByFrame, false},
	{"/jax/", FrameworkJAX, FrameworkByFrame, false},
	{"/jaxlib/", FrameworkJAX, FrameworkByFrame, false},
	{"jax._src.", FrameworkJAX, FrameworkByFrame, false}, // a logger or module name
	{"/tensorflow/python/", FrameworkTensorFlow, FrameworkByFrame, false},
	{"/tf_keras/", FrameworkTensorFlow, FrameworkByFrame, false},
	{"/keras/", FrameworkTensorFlow, FrameworkByFrame, false},

	// TensorFlow's own runtime; XLA's sources in old jaxlib builds sit under external/org_tensorflow/tensorflow/.
	{"tensorflow/core/", FrameworkTensorFlow, FrameworkByLog, true},
	{"tensorflow/compiler/jit/", FrameworkTensorFlow, FrameworkByLog, true},
	{"tensorflow/compiler/tf2xla/", FrameworkTensorFlow, FrameworkByLog, true},
	{"external/local_xla/", FrameworkTensorFlow, FrameworkByLog, true}, // TensorFlow's name for XLA; JAX's is external/xla
	{"external/local_tsl/", FrameworkTensorFlow, FrameworkByLog, true},
	{"Created device /job:", FrameworkTensorFlow, FrameworkByLog, false}, // gpu_device.cc, TF 2
	{"Created TensorFlow device", FrameworkTensorFlow, FrameworkByLog, false},
	{"OOM when allocating tensor", FrameworkTensorFlow, FrameworkByLog, false},
	{"report_tensor_allocations_upon_oom", FrameworkTensorFlow, FrameworkByLog, false},
	{"[[{{node ", FrameworkTensorFlow, FrameworkByLog, false},
	{"[Op:__inference_", FrameworkTensorFlow, FrameworkByLog, false},
}

// markGate is each mark's gate, -1 for none.
var markGate = func() (g [len(frameworkMarks)]int) {
	for i := range frameworkMarks {
		g[i] = gateOf(frameworkMarks[i].text)
	}
	return g
}()

// FrameworkEvidence returns the framework that text shows most strongly and how strongly (0 for none): the
// raised exception's type over traceback frames over log lines. It reads only fixed marks, no expression.
func FrameworkEvidence(text string) (framework string, strength int) {
	var gates [len(markGates)]int8 // 0 not read, 1 present, -1 absent
	for i := range frameworkMarks {
		m := &frameworkMarks[i]
		if m.strength <= strength {
			continue // marks are grouped by strength, strongest first: only a stronger one can change the answer
		}
		if g := markGate[i]; g >= 0 {
			if gates[g] == 0 {
				gates[g] = -1
				if strings.Contains(text, markGates[g]) {
					gates[g] = 1
				}
			}
			if gates[g] < 0 {
				continue
			}
		}
		if hasMark(text, m) {
			framework, strength = m.framework, m.strength
			if strength == FrameworkByException {
				return framework, strength
			}
		}
	}
	return framework, strength
}

// FrameworkOf returns the framework text shows ("" when none): FrameworkEvidence without its strength.
func FrameworkOf(text string) string {
	f, _ := FrameworkEvidence(text)
	return f
}

func hasMark(text string, m *frameworkMark) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], m.text)
		if i < 0 {
			return false
		}
		i += from
		if !m.pathStart || i == 0 || !pathByte(text[i-1]) {
			return true
		}
		from = i + len(m.text)
	}
}

// pathByte reports whether c can continue a source path, so a mark after it is not the path's start.
func pathByte(c byte) bool {
	return c == '/' || c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
