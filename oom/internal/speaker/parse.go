// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Hand-written parsers, no regexp: they run at every statement start.

// exception is an exception's type where a statement starts with one.
type exception struct {
	module, class string
	end           int // where the message starts, after "Class: "
	cpp           bool
}

// exceptionAt reads the exception statement starts with ("jax.errors.JaxRuntimeError: ", "Caused by: java…",
// "terminate called after throwing an instance of 'rmm::out_of_memory'"). A dotted name is a class when its last
// part is capitalised; an unqualified one only when it ends in Error or Exception ("Stats:" is not).
func exceptionAt(statement string) (exception, bool) {
	off := 0
	for off < len(statement) && (statement[off] == ' ' || statement[off] == '\t') {
		off++
	}
	if e, ok := exceptionStart(statement, off); ok {
		return e, true
	}
	if k := enclosureEnd(statement[off:]); k > 0 {
		return exceptionStart(statement, off+k)
	}
	return exception{}, false
}

// enclosureEnd is where the text behind an enclosure at the start of s starts ("[trainer] ", {"log":"), 0 for none.
func enclosureEnd(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case '[':
		if k := strings.Index(s[:min(len(s), enclosureSpan)], "] "); k > 0 {
			return k + 2
		}
	case '{':
		if k := strings.Index(s[:min(len(s), enclosureSpan)], `":"`); k > 0 {
			return k + 3
		}
	case '"', '\'':
		return 1
	default:
		i := 0
		for i < len(s) && i < enclosureSpan && logheader.IsWordByte(s[i]) {
			i++
		}
		if i > 0 && (strings.HasPrefix(s[i:], `="`) || strings.HasPrefix(s[i:], `='`)) {
			return i + 2
		}
	}
	return 0
}

func exceptionStart(statement string, off int) (exception, bool) {
	s := statement[off:]
	if s == "" || !logheader.IsWordByte(s[0]) || logheader.IsDigit(s[0]) {
		return exception{}, false // most lines: cheaply not an exception
	}
	if rest, ok := strings.CutPrefix(s, cppTerminate); ok {
		typ, _, found := strings.Cut(rest, "'")
		if !found || typ == "" {
			return exception{}, false
		}
		e := exception{class: typ, end: off + len(cppTerminate) + len(typ) + 1, cpp: true}
		if k := strings.LastIndex(typ, "::"); k > 0 {
			e.module, e.class = typ[:k], typ[k+2:]
		}
		return e, true
	}
	switch {
	case s[0] == 'E' && strings.HasPrefix(s, javaThread):
		_, after, found := strings.Cut(s[len(javaThread):], "\" ")
		if !found {
			return exception{}, false
		}
		off += len(s) - len(after)
		s = after
	case s[0] == 'C' && strings.HasPrefix(s, "Caused by: "):
		off += len("Caused by: ")
		s = s[len("Caused by: "):]
	}
	i := 0
	for i < len(s) && (logheader.IsWordByte(s[i]) || s[i] == '.' && i > 0) {
		i++
	}
	full := s[:i]
	if i == 0 || logheader.IsDigit(s[0]) || !strings.HasPrefix(s[i:], ":") || i+1 < len(s) && s[i+1] != ' ' {
		return exception{}, false
	}
	e := exception{class: full, end: off + i + 1}
	if k := strings.LastIndexByte(full, '.'); k > 0 {
		e.module, e.class = full[:k], full[k+1:]
		return e, e.class != "" && e.class[0] >= 'A' && e.class[0] <= 'Z'
	}
	return e, strings.HasSuffix(full, "Error") || strings.HasSuffix(full, "Exception")
}

const enclosureSpan = 64

// embeddedSpan is how far into a statement a carried exception is looked for.
const embeddedSpan = 240

// embeddedException finds the first exception of a module a row names inside a message
// ("ERROR:root:Batch failed: cupy.cuda.memory.OutOfMemoryError: ...").
func embeddedException(message string) (exception, bool) {
	head := message[:min(len(message), embeddedSpan)]
	for from := 0; from < len(head); {
		k := strings.Index(head[from:], ": ")
		if k < 0 {
			break
		}
		end := from + k
		from = end + 2
		start := end
		for start > 0 && (logheader.IsWordByte(head[start-1]) || head[start-1] == '.') {
			start--
		}
		full := head[start:end]
		dot := strings.LastIndexByte(full, '.')
		if dot <= 0 || dot == len(full)-1 || full[dot+1] < 'A' || full[dot+1] > 'Z' {
			continue
		}
		if _, o := ownerOfName(full[:dot]); o != Unknown {
			return exception{module: full[:dot], class: full[dot+1:], end: end + 2}, true
		}
	}
	return exception{}, false
}

// nativeHeader reads the source file and level of a glog/absl, TSL or vLLM header's innermost "file:line]".
func nativeHeader(header string) (file string, level byte, ok bool) {
	h, ok := strings.CutSuffix(strings.TrimRight(header, " "), "]")
	if !ok {
		k := strings.LastIndex(h, "] ") // an outer launcher's tag after the native header
		if k < 0 {
			return "", 0, false
		}
		h = h[:k]
	}
	token := h[strings.LastIndexAny(h, " [")+1:]
	c := strings.LastIndexByte(token, ':')
	if c <= 0 || c+1 == len(token) || logheader.DigitsEnd(token, c+1) != len(token) {
		return "", 0, false
	}
	return token[:c], logtext.HeaderLevel(header), true
}

// loggerHeader reads the logger and level of "ERROR:jax._src.xla_bridge:" and "… - root - ERROR - " headers.
func loggerHeader(header string) (string, byte, bool) {
	h := strings.TrimRight(header, " ")
	if strings.HasSuffix(h, " -") {
		parts := strings.Split(h+" ", " - ")
		if n := len(parts); n >= 4 && logheader.LevelOfWord(parts[n-2]) != 0 {
			return parts[n-3], logheader.LevelOfWord(parts[n-2]), true
		}
		return "", 0, false
	}
	h, ok := strings.CutSuffix(h, ":")
	if !ok {
		return "", 0, false
	}
	k := strings.LastIndexByte(h, ':')
	if k <= 0 {
		return "", 0, false
	}
	w := h[:k]
	if j := strings.LastIndexAny(w, " :]"); j >= 0 {
		w = w[j+1:]
	}
	if lv := logheader.LevelOfWord(w); lv != 0 {
		return h[k+1:], lv, true
	}
	return "", 0, false
}

// enclosedLogger reads a Python logging header behind an enclosure, where the log header parser does not look.
func enclosedLogger(statement string) (string, byte, bool) {
	s := statement[enclosureEnd(statement):]
	w := 0
	for w < len(s) && s[w] >= 'A' && s[w] <= 'Z' {
		w++
	}
	lv := logheader.LevelOfWord(s[:w])
	if lv == 0 || !strings.HasPrefix(s[w:], ":") {
		return "", 0, false
	}
	j := w + 1
	for j < len(s) && (logheader.IsWordByte(s[j]) || s[j] == '.') {
		j++
	}
	if j == w+1 || !strings.HasPrefix(s[j:], ":") {
		return "", 0, false
	}
	return s[w+1 : j], lv, true
}

// enclosedNative reads a native log header ("E0101 12:00:00.000000 1234 bfc_arena.cc:376] ") behind an enclosure.
func enclosedNative(statement string) (file string, level byte, ok bool) {
	k := enclosureEnd(statement)
	if k == 0 {
		return "", 0, false
	}
	s := statement[k:]
	rest, _, stripped := logheader.StripLevel(s)
	if !stripped {
		return "", 0, false
	}
	return nativeHeader(s[:len(s)-len(rest)])
}

// Frames only make a statement foreign, never XLA's, and only an installed package counts: the user's files
// can sit anywhere, and JAX filters its own frames out.

const frameStart = `File "`

// raisedIn gives s the owner of tb's innermost frame where it lies in a foreign program's installed package.
func (s *Speaker) raisedIn(tb string) {
	k := strings.LastIndex(tb, frameStart)
	if k < 0 {
		return
	}
	path, _, ok := strings.Cut(tb[k+len(frameStart):], `"`)
	if !ok {
		return
	}
	if p, o := ownerOfName(installedPackage(path)); o == Foreign {
		s.File, s.Program, s.Owner = path, p, o
	}
}

// installedPackage is the top-level package of a frame's path under site- or dist-packages, or of a compiled
// module's relative path ("cupy/cuda/memory.pyx"); "" for any other path.
func installedPackage(path string) string {
	for _, dir := range []string{"/site-packages/", "/dist-packages/"} {
		if k := strings.LastIndex(path, dir); k >= 0 {
			pkg, _, _ := strings.Cut(path[k+len(dir):], "/")
			return pkg
		}
	}
	if !strings.HasPrefix(path, "/") && (strings.HasSuffix(path, ".pyx") || strings.HasSuffix(path, ".pxd")) {
		pkg, _, _ := strings.Cut(path, "/")
		return pkg
	}
	return ""
}
