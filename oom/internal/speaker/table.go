// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// The speakers, one row each; the first row that matches decides, so XLA's stack comes first
// ("external/xla/xla/backends/gpu/codegen/triton/..." is XLA's, not Triton's).
type rowKind uint8

const (
	name   rowKind = iota // a dotted Python name or C++ namespace at its start, or a source path segment
	class                 // an exception class printed without its module
	tag                   // a program's own mark within the head of its log line
	prefix                // a C function prefix the line starts with ("ggml_...: ")
	status                // how the message of an exception whose class names no program starts
	start                 // a tag that starts a statement wherever it stands
)

type row struct {
	kind    rowKind
	key     string // keys of one program, one after the other, joined by "|"
	program string
	owner   Owner
}

var rows = []row{
	// XLA's stack: the compiler and runtimes, and the frameworks that raise their statuses.
	{name, "xla|tsl", "xla", XLA},
	{name, "jax|jaxlib|jax_plugins", "jax", XLA},
	{name, "libtpu", "xla", XLA},
	{name, "tensorflow", "tensorflow", XLA},
	{name, "torch_xla", "torch_xla", XLA},
	{class, "XlaRuntimeError", "xla", XLA},
	{class, "JaxRuntimeError", "jax", XLA},
	{status, "Bad StatusOr access: ", "torch_xla", XLA}, // PyTorch/XLA raises XLA's status as a RuntimeError

	{name, "cupy|cupy_backends|cupyx", "cupy", Foreign},
	// Chainer prints its main loop's exception behind its own words (chainer/training/trainer.py).
	{name, "chainer", "chainer", Foreign},
	{start, "Exception in main training loop: ", "chainer", Foreign},
	// CuPy's OutOfMemoryError as str(e) prints it; XLA:CPU's "Out of memory allocating N bytes." has no such tail.
	{tag, " bytes (allocated so far: ", "cupy", Foreign},
	{name, "numba", "numba", Foreign},
	{name, "triton", "triton", Foreign},
	{tag, "== CUDA [", "numba", Foreign}, // numba.cuda's own log handler
	{name, "torch|c10|aten", "pytorch", Foreign},
	{name, "paddle", "paddlepaddle", Foreign},
	{class, "EnforceNotMet", "paddlepaddle", Foreign},
	{name, "onnxruntime|onnxruntime_src", "onnxruntime", Foreign},
	{tag, ":onnxruntime:", "onnxruntime", Foreign}, // "[E:onnxruntime:, file.cc:N Func] "
	{name, "mxnet", "mxnet", Foreign},
	{class, "MXNetError", "mxnet", Foreign},
	{name, "tensorrt|tensorrt_llm|torch_tensorrt", "tensorrt", Foreign},
	{tag, "[TRT]|[TensorRT]", "tensorrt", Foreign},
	{name, "llama_cpp|ggml", "llama.cpp", Foreign},
	// alloc_tensor_range: ggml-alloc.c, without the ggml_ prefix
	{prefix, "ggml_|llama_|alloc_tensor_range", "llama.cpp", Foreign},
	{tag, "NCCL WARN|NCCL INFO", "nccl", Foreign},
	{name, "rmm|cudf|cuml|cugraph|dask_cudf", "rapids", Foreign},
	{name, "java|javax", "jvm", Foreign},
	{name, "org.apache.spark", "spark", Foreign},
	{name, "psycopg2|psycopg|asyncpg", "postgresql", Foreign},
	{name, "redis", "redis", Foreign},
	{prefix, "zmalloc", "redis", Foreign},
	{name, "pymysql|MySQLdb|mysql", "mysql", Foreign},
	{name, "pymongo", "mongodb", Foreign},
	{name, "sqlalchemy", "sqlalchemy", Foreign},
}

// The rows of each kind, in table order, one per key; a start row is a tag too.
var nameRows, classRows, tagRows, prefixRows, statusRows, startRows = rowsOf(name), rowsOf(class), rowsOf(tag, start),
	rowsOf(prefix), rowsOf(status), rowsOf(start)

func rowsOf(kinds ...rowKind) []row {
	var out []row
	for _, r := range rows {
		if slices.Contains(kinds, r.kind) {
			for key := range strings.SplitSeq(r.key, "|") {
				out = append(out, row{r.kind, key, r.program, r.owner})
			}
		}
	}
	return out
}

// lookup returns the program and owner of the first of rows whose key matches.
func lookup(rows []row, matches func(key string) bool) (string, Owner) {
	for i := range rows {
		if r := &rows[i]; matches(r.key) {
			return r.program, r.owner
		}
	}
	return "", Unknown
}

func startsTagged(line string) bool {
	_, o := lookup(startRows, func(key string) bool { return strings.HasPrefix(line, key) })
	return o != Unknown
}

// ownerOfName finds the row of a dotted name or C++ namespace: "torch.cuda" has "torch", "torch_xla" has not.
func ownerOfName(n string) (string, Owner) {
	return lookup(nameRows, func(key string) bool {
		rest, ok := strings.CutPrefix(n, key)
		return ok && (rest == "" || rest[0] == '.' || strings.HasPrefix(rest, "::"))
	})
}

func ownerOfClass(c string) (string, Owner) {
	return lookup(classRows, func(key string) bool { return key == c })
}

func ownerOfStatus(message string) (string, Owner) {
	message = strings.TrimLeft(message, " ")
	return lookup(statusRows, func(key string) bool { return strings.HasPrefix(message, key) })
}

// ownerOfPath finds the row of a source path's first segment one names ("external/xla+/": bzlmod adds "+").
func ownerOfPath(path string) (string, Owner) {
	for path != "" {
		seg, rest, _ := strings.Cut(path, "/")
		path = rest
		if rest == "" && seg != "" && strings.IndexByte(seg, '.') >= 0 {
			break // the file's own name: "alloc.h" names no program
		}
		seg = strings.TrimSuffix(seg, "+")
		if p, o := lookup(nameRows, func(key string) bool { return key == seg }); o != Unknown {
			return p, o
		}
	}
	return "", Unknown
}

// tagSpan is how far into a statement a tag is looked for: past a timestamp, host, pid and thread.
const tagSpan = 160

func ownerOfTag(statement string) (string, Owner) {
	head := statement[:min(len(statement), tagSpan)]
	if p, o := lookup(prefixRows, func(key string) bool { return startsFunction(head, key) }); o != Unknown {
		return p, o
	}
	return lookup(tagRows, func(key string) bool { return strings.Contains(head, key) })
}

// startsFunction reports whether s starts with a C identifier starting with key, then ": ".
func startsFunction(s, key string) bool {
	if !strings.HasPrefix(s, key) {
		return false
	}
	i := len(key)
	for i < len(s) && logheader.IsWordByte(s[i]) {
		i++
	}
	return strings.HasPrefix(s[i:], ": ")
}

// pathInMessage finds the first source path a row names in an exception's message (PaddlePaddle's
// "(at /paddle/paddle/fluid/...)", RMM's "at: .../include/rmm/mr/...") and returns it with its owner.
func pathInMessage(message string) (string, string, Owner) {
	for i := 0; i < len(message); i++ {
		j := strings.IndexByte(message[i:], '/')
		if j < 0 {
			break
		}
		i += j
		start := i
		for start > 0 && !isPathEnd(message[start-1]) {
			start--
		}
		end := i
		for end < len(message) && !isPathEnd(message[end]) {
			end++
		}
		path := message[start:end]
		if p, o := ownerOfPath(strings.TrimLeft(path, "/")); o != Unknown {
			return path, p, o
		}
		i = end
	}
	return "", "", Unknown
}

func isPathEnd(c byte) bool {
	return c == ' ' || c == '(' || c == ')' || c == '\'' || c == '"' || c == ',' || c == ';' || c == '=' || c == '\n'
}
