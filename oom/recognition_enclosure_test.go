// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"regexp"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// A family's message is recognised by its own text, whatever stands in
// front of it or around it, and wherever it stands in a multi-line record;
// its sizes come from the line that failed. Every family's example (the
// entries' example field) is checked in every enclosure below against what
// it reads alone.

// enclosures put a text inside what an application or a language runtime
// prints around it.
var enclosures = []struct {
	name string
	wrap func(text string) string
}{
	{"XlaRuntimeError", func(s string) string { return "jaxlib.xla_extension.XlaRuntimeError: " + s }},
	{"JaxRuntimeError", func(s string) string { return "jax.errors.JaxRuntimeError: " + s }},
	{"RuntimeError", func(s string) string { return "RuntimeError: " + s }},
	{"TF ResourceExhaustedError", func(s string) string {
		return "tensorflow.python.framework.errors_impl.ResourceExhaustedError: " + s
	}},
	{"application tag", func(s string) string { return "[trainer] " + s }},
	{"glog header", func(s string) string { return "E0528 07:02:44.350251   27487 train.py:88] " + s }},
	{"absl python logging", func(s string) string { return "ERROR:absl:" + s }},
	{"python logging", func(s string) string { return "2024-05-28 07:02:44,349 - trainer - ERROR - " + s }},
	{"k8s CRI", func(s string) string { return "2025-06-03T17:44:12.301945812Z stderr F " + s }},
	{"journald", func(s string) string { return "Nov 22 10:00:00 tpu-vm-0 python3[1234]: " + s }},
	{"JSON-escaped", func(s string) string {
		return `{"log":"` + jsonEscape(s) + `\n","stream":"stderr","time":"2025-06-03T17:44:12.301945812Z"}`
	}},
	{"double-quoted", func(s string) string { return `error="` + jsonEscape(s) + `"` }},
	{"Python repr", pythonRepr},
	{"traceback", func(s string) string {
		return "Traceback (most recent call last):\n  File \"/app/train.py\", line 41, in <module>\n    state = train_step(state, batch)\n" +
			"  File \"/app/train.py\", line 29, in train_step\n    return step_fn(state, batch)\n" + s + "\n"
	}},
	{"JSON-escaped traceback", func(s string) string {
		return `{"log":"` + jsonEscape("Traceback (most recent call last):\n  File \"/app/train.py\", line 41, in <module>\n"+s) + `"}`
	}},
	{"k8s header on every line of a traceback", func(s string) string {
		lines := strings.Split("Traceback (most recent call last):\n  File \"/app/train.py\", line 41, in <module>\n"+s, "\n")
		for i := range lines {
			lines[i] = "2025-06-03T17:44:12.301945812Z stderr F " + lines[i]
		}
		return strings.Join(lines, "\n")
	}},
	{"between unrelated lines", func(s string) string {
		return "I0528 07:02:40.100000   27487 train.py:70] step 1200 loss=2.314\n" + s + "\nI0528 07:02:45.000000   27487 checkpoint.py:12] saving checkpoint 1200\n"
	}},
}

// exceptionEnclosures are the enclosures that make a text an exception's
// message, which never starts with a log header.
var exceptionEnclosures = map[string]bool{
	"XlaRuntimeError": true, "JaxRuntimeError": true, "RuntimeError": true, "TF ResourceExhaustedError": true, "Python repr": true,
}

// neighbours are non-fatal lines with sizes of their own that stand before
// a failure in the same record; they must not lend it their sizes.
var neighbours = []struct{ name, line string }{
	{"BFC retry", "W0101 00:00:00.000000 7 bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory trying to allocate 9.99GiB with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available."},
	{"INFO back-off", "I0101 00:00:00.000000 7 cuda_driver.cc:1201] failed to allocate 77.77GiB (83503530393 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory"},
	{"remat warning", "W0905 17:27:21.000000 7 hlo_rematerialization.cc:3231] Can't reduce memory use below 57.03GiB (61237292825 bytes) by rematerialization; only reduced to 68.32GiB (73361280968 bytes), down from 68.32GiB (73361280968 bytes) originally"},
	{"autotuner fallback", "W0301 12:00:00.000000 4242 gemm_algorithm_picker.cc:162] Failed to find best cuBLAS algorithm, GEMM performance might be suboptimal: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 33554432 bytes."},
}

func jsonEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)
}

// pythonRepr is repr() of an exception with message s: single quotes unless
// s holds a single quote and no double one.
func pythonRepr(s string) string {
	s = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `XlaRuntimeError("` + s + `")`
	}
	return `XlaRuntimeError('` + strings.ReplaceAll(s, "'", `\'`) + `')`
}

// enclosedExamples calls fn with every failure family's example in every
// enclosure, and after every neighbour line.
func enclosedExamples(fn func(f *grammar.Family, label, text string)) {
	for i := range defaultRecognizer.Families {
		f := &defaultRecognizer.Families[i]
		for _, e := range enclosures {
			fn(f, e.name, e.wrap(f.Example))
		}
		for _, n := range neighbours {
			fn(f, "after "+n.name, n.line+"\n"+f.Example)
		}
	}
}

func enclosureTexts() []string {
	var out []string
	enclosedExamples(func(_ *grammar.Family, _, text string) { out = append(out, text) })
	for _, msgs := range strForms() {
		for _, msg := range msgs {
			for _, e := range messageAloneEnclosures {
				out = append(out, e.wrap(msg))
			}
		}
	}
	return out
}

func TestExamplesInEveryEnclosure(t *testing.T) {
	enclosedExamples(func(f *grammar.Family, label, text string) {
		t.Run(f.ID+"/"+label, func(t *testing.T) {
			alone, ok := Recognize(f.Example)
			if !ok {
				t.Fatalf("the example itself is not recognised")
			}
			r, ok := Recognize(text)
			if !ok {
				t.Fatalf("not recognised: %q", text)
			}
			checkSameFailure(t, r, alone)
		})
	})
}

// checkSameFailure: the enclosed message reads as the message alone. The
// backend may be learnt from the enclosure (an allocator name in a
// neighbouring line) only where the message leaves it open.
func checkSameFailure(t *testing.T, got, alone grammar.Report) {
	t.Helper()
	for _, f := range []struct{ name, got, want string }{
		{"Family", got.Family, alone.Family}, {"Code", got.Code, alone.Code}, {"Phase", got.Phase, alone.Phase},
		{"MemorySpace", got.MemorySpace, alone.MemorySpace}, {"Instruction", got.Instruction, alone.Instruction},
		{"Program", got.Program, alone.Program}, {"Device", got.Device, alone.Device},
	} {
		if f.got != f.want {
			t.Errorf("%s = %q, alone %q", f.name, f.got, f.want)
		}
	}
	if alone.Backend != "" && got.Backend != alone.Backend {
		t.Errorf("Backend = %q, alone %q", got.Backend, alone.Backend)
	}
	g, a := reportSizes(got), reportSizes(alone)
	for i, name := range sizeNames {
		if g[i] != a[i] {
			t.Errorf("%s = %+v, alone %+v", name, g[i], a[i])
		}
	}
}

// The last-resort layer's findings hold in the same enclosures.
func TestGenericCasesInEveryEnclosure(t *testing.T) {
	for _, c := range genericCases {
		alone, ok := Recognize(c.text)
		if !ok || alone.Family != generic.FamilyGeneric {
			continue // a family knows it now: TestExamplesInEveryEnclosure covers it
		}
		check := func(label, text string) {
			t.Run(c.name+"/"+label, func(t *testing.T) {
				r, ok := Recognize(text)
				if !ok {
					t.Fatalf("not recognised: %q", text)
				}
				checkSameFailure(t, r, alone)
			})
		}
		for _, e := range enclosures {
			if exceptionEnclosures[e.name] && logheader.Len(c.text) > 0 {
				continue // a log line is not an exception's message
			}
			check(e.name, e.wrap(c.text))
		}
		for _, n := range neighbours {
			check("after "+n.name, n.line+"\n"+c.text)
		}
	}
}

// What a program prints when it catches an exception and prints its message
// alone (print(e), logging.error("%s", e), an issue title): str(e), with no
// class name, and for TensorFlow no status word either, on its own or
// behind the application's own words.
var messageAloneEnclosures = []struct {
	name string
	wrap func(text string) string
}{
	{"alone", func(s string) string { return s }},
	{"Error: prefix", func(s string) string { return "Error: " + s }},
	{"python logging root", func(s string) string { return "ERROR:root:" + s }},
	{"application words", func(s string) string { return "Training failed: " + s }},
	{"print after a progress line", func(s string) string { return "step 1200 loss=2.314\n" + s }},
}

// exceptionClass is the class name in front of an exception's message in a
// family's example ("jax.errors.JaxRuntimeError: ").
var exceptionClass = regexp.MustCompile(`^[\w.]*(?:Error|Exception): `)

// strForms are the str(e) forms of every family whose example is an
// exception: the example without its class name, and the forms TensorFlow,
// Keras and the libraries that re-raise print around the same messages.
func strForms() map[string][]string {
	forms := map[string][]string{}
	for i := range defaultRecognizer.Families {
		f := &defaultRecognizer.Families[i]
		if msg := exceptionClass.ReplaceAllString(f.Example, ""); msg != f.Example {
			forms[f.ID] = append(forms[f.ID], msg)
		}
	}
	// TensorFlow 2 eager: the function_node tag and the op name suffix.
	forms["tensorflow-op-tensor-allocation"] = append(forms["tensorflow-op-tensor-allocation"],
		"{{function_node __wrapped__Conv2D_device_/job:localhost/replica:0/task:0/device:GPU:0}} OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:Conv2D] name: ",
		// Graph mode and Keras: the node, the hint, the function.
		"Graph execution error:\n\nDetected at node 'Conv2D' defined at (most recent call last):\nNode: 'Conv2D'\n"+
			"OOM when allocating tensor with shape[16,64,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n"+
			"\t [[{{node Conv2D}}]]\nHint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info. This isn't available when running in Eager mode.\n [Op:__inference_train_function_1234]")
	forms["tensorflow-op-allocation-failed"] = append(forms["tensorflow-op-allocation-failed"],
		"{{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:GPU:0}} failed to allocate memory [Op:AddV2] name: ")
	// Orbax and Flax re-raise the runtime's error inside their own message.
	forms["gpu-runtime"] = append(forms["gpu-runtime"],
		"Failed to restore checkpoint from /ckpt/step_1200: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 214748364800 bytes.")
	return forms
}

// TestMessageAloneEnclosures: the str(e) form of every exception family,
// printed alone or behind an application's own words, reads as its example.
func TestMessageAloneEnclosures(t *testing.T) {
	forms := strForms()
	for _, id := range []string{"tensorflow-op-tensor-allocation", "tensorflow-op-gpu-scratch", "tensorflow-op-allocation-failed", "cpu-runtime", "gpu-runtime-constant-allocation"} {
		if len(forms[id]) == 0 {
			t.Errorf("%s: no str(e) form", id)
		}
	}
	for i := range defaultRecognizer.Families {
		f := &defaultRecognizer.Families[i]
		alone, ok := Recognize(f.Example)
		if !ok {
			t.Fatalf("%s: the example itself is not recognised", f.ID)
		}
		for _, msg := range forms[f.ID] {
			for _, e := range messageAloneEnclosures {
				t.Run(f.ID+"/"+e.name, func(t *testing.T) {
					text := e.wrap(msg)
					r, ok := Recognize(text)
					if !ok {
						t.Fatalf("not recognised: %q", text)
					}
					checkSameFailure(t, r, alone)
				})
			}
		}
	}
}
