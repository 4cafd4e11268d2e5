// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package logheader is the one grammar of log-line headers: the recogniser's, the agent's line start, a CRI prefix,
// the kernel log's. By hand, no regexp: it runs on every line that reaches the recogniser.
package logheader // import "github.com/xlaoom/xlaoomprocessor/internal/logheader"

import (
	"slices"
	"strings"
)

// Strip removes a line's log headers, nested ones too.
func Strip(line string) string {
	rest, _, _ := StripLevel(line)
	return rest
}

// Len returns the length of the log-line header at the start of l, or 0.
func Len(l string) int {
	n, _ := header(l)
	return n
}

// header returns the length of l's leading header and its level (0: none).
func header(l string) (int, byte) {
	if l == "" {
		return 0, 0
	}
	switch c := l[0]; {
	case c >= '0' && c <= '9':
		return timestampHeader(l)
	case isLevel(c):
		if n := glogHeader(l); n > 0 {
			return n, c
		}
		if n, lv := levelHeader(l); n > 0 {
			return n, lv
		}
		return syslogHeader(l), 0
	case c == '[':
		return bracketHeader(l), 0
	case c == '(':
		return rayHeader(l), 0
	case c == 'D' || c == 'C':
		if n := syslogHeader(l); n > 0 {
			return n, 0
		}
		return levelHeader(l)
	case c >= 'A' && c <= 'Z':
		return syslogHeader(l), 0
	}
	return 0, 0
}

// syslogHeader matches "Nov 22 10:00:00 host python3[1234]: ".
func syslogHeader(l string) int {
	if len(l) < 16 || !isMonth(l[:3]) || l[3] != ' ' {
		return 0
	}
	i := 4
	if l[i] == ' ' {
		i++
	}
	if j := DigitsEnd(l, i); j == i || j > i+2 || !HasAt(l, j, " ") {
		return 0
	} else {
		i = j + 1
	}
	if i = timeEnd(l, i); i < 0 || !HasAt(l, i, " ") {
		return 0
	}
	h := strings.IndexByte(l[i+1:], ' ')
	if h <= 0 {
		return 0
	}
	i += 1 + h + 1 // past the host name
	e := strings.Index(l[i:], ": ")
	if e <= 0 || strings.IndexByte(l[i:i+e], ' ') >= 0 {
		return 0
	}
	return i + e + 2
}

// glogHeader matches absl/glog headers:
//
//	E0528 07:02:44.350251   27487 pjrt_stream_executor_client.cc:2826]
//	I0000 00:00:1758277414.566053 1017489 gpu_helpers.cc:136]   (pre-init)
//	W0905 17:27:21 hlo_rematerialization.cc:3231]               (no thread)
//	E0914 cuda_executor.cc:1182]                                (no time)
//	E tensorflow/compiler/xla/xla_client/xla_util.cc:88]        (old TF)
func glogHeader(l string) int {
	i := 1
	if j := DigitsEnd(l, i); j-i == 4 {
		if t := timeEnd(l, j+1); HasAt(l, j, " ") && t > 0 {
			j = t // " HH:MM:SS[.frac]", SS epoch seconds in absl's pre-init lines
		}
		i = j
	} else if j != i {
		return 0
	}
	return fileLineEnd(l, i)
}

// timestampHeader matches TSL's "2024-05-28 07:02:44.349554: W file.cc:482] ", ISO/CRI stamps and Python logging's.
func timestampHeader(l string) (int, byte) {
	i := dateEnd(l, 0)
	if i < 0 || i >= len(l) {
		return 0, 0
	}
	iso := l[i] == 'T'
	if l[i] != ' ' && !iso {
		return 0, 0
	}
	i = timeEnd(l, i+1)
	if i < 0 {
		return 0, 0
	}
	if iso {
		if i = zoneEnd(l, i); !HasAt(l, i, " ") {
			return 0, 0
		}
		i++
		for _, s := range []string{"stdout F ", "stderr F ", "stdout P ", "stderr P "} {
			if HasAt(l, i, s) {
				return i + len(s), 0
			}
		}
		return i, 0
	}
	// TSL: ": L[ tid] file:line] "
	if HasAt(l, i, ": ") && i+3 < len(l) && isLevel(l[i+2]) && (l[i+3] == ' ') {
		if n := fileLineEnd(l, i+3); n > 0 {
			return n, l[i+2]
		}
	}
	// Python logging: " - name - LEVEL - "
	if HasAt(l, i, " - ") {
		j := strings.Index(l[i+3:], " - ")
		if j >= 0 {
			k := i + 3 + j + 3
			e := strings.Index(l[k:], " - ")
			if lv := LevelOfWord(l[k : k+max(e, 0)]); lv != 0 {
				return k + e + 3, lv
			}
		}
	}
	return 0, 0
}

// levelHeader matches "ERROR:absl:" and vLLM's "ERROR 09-19 10:23:41 [core.py:214] ".
func levelHeader(l string) (int, byte) {
	w := 0
	for w < len(l) && l[w] >= 'A' && l[w] <= 'Z' {
		w++
	}
	lv := LevelOfWord(l[:w])
	if lv == 0 || w >= len(l) {
		return 0, 0
	}
	if l[w] == ':' {
		j := w + 1
		for j < len(l) && (IsWordByte(l[j]) || l[j] == '.') {
			j++
		}
		if j > w+1 && HasAt(l, j, ":") {
			return j + 1, lv
		}
		return 0, 0
	}
	if l[w] != ' ' {
		return 0, 0
	}
	i := w + 1
	// MM-DD HH:MM:SS[.frac] [file:line]
	if j := DigitsEnd(l, i); j-i == 2 && HasAt(l, j, "-") {
		if k := DigitsEnd(l, j+1); k-j-1 == 2 && HasAt(l, k, " ") {
			if t := timeEnd(l, k+1); t > 0 && HasAt(l, t, " [") {
				if e := strings.IndexByte(l[t+2:], ']'); e >= 0 && HasAt(l, t+2+e+1, " ") {
					return t + 2 + e + 2, lv
				}
			}
		}
	}
	return 0, 0
}

// bracketHeader matches MPI "[1,2]<stderr>:" and torchrun "[rank3]:" prefixes.
func bracketHeader(l string) int {
	e := strings.IndexByte(l, ']')
	if e < 2 {
		return 0
	}
	in := l[1:e]
	if strings.HasPrefix(in, "rank") && DigitsEnd(in, 4) == len(in) && len(in) > 4 && HasAt(l, e+1, ":") {
		return e + 2
	}
	if c := strings.IndexByte(in, ','); c > 0 && DigitsEnd(in, 0) == c && DigitsEnd(in, c+1) == len(in) && c+1 < len(in) {
		for _, s := range []string{"<stderr>:", "<stdout>:"} {
			if HasAt(l, e+1, s) {
				return e + 1 + len(s)
			}
		}
	}
	return 0
}

// rayHeader matches process tags: "(EngineCore_DP0 pid=896988) ", "(pid=1234) ".
func rayHeader(l string) int {
	e := strings.IndexByte(l, ')')
	if e < 0 || e > 160 || !HasAt(l, e+1, " ") && e+1 != len(l) {
		return 0
	}
	p := strings.Index(l[:e], "pid=")
	if p < 0 || (p > 1 && l[p-1] != ' ') || DigitsEnd(l, p+4) == p+4 {
		return 0
	}
	return min(e+2, len(l))
}

// fileLineEnd matches "[ +tid] file:line] " at i (a space); its end or 0.
func fileLineEnd(l string, i int) int {
	j := i
	for j < len(l) && l[j] == ' ' {
		j++
	}
	if j == i {
		return 0
	}
	if k := DigitsEnd(l, j); k > j && HasAt(l, k, " ") {
		j = k
		for j < len(l) && l[j] == ' ' {
			j++
		}
	}
	k := j
	for k < len(l) && l[k] != ' ' && l[k] != ']' {
		k++
	}
	if k >= len(l) || l[k] != ']' || k == j {
		return 0
	}
	c := strings.LastIndexByte(l[j:k], ':')
	if c < 1 || DigitsEnd(l, j+c+1) != k || j+c+1 == k {
		return 0
	}
	if k+1 < len(l) && l[k+1] != ' ' {
		return 0
	}
	return min(k+2, len(l))
}

// zoneEnd passes an ISO time's zone at i ("Z", "+02", "+02:00", "+0200").
func zoneEnd(l string, i int) int {
	if HasAt(l, i, "Z") {
		return i + 1
	}
	if j := DigitsEnd(l, i+1); (HasAt(l, i, "+") || HasAt(l, i, "-")) && j > i+1 {
		if HasAt(l, j, ":") {
			return DigitsEnd(l, j+1)
		}
		return j
	}
	return i
}

// dateEnd matches YYYY-MM-DD at i.
func dateEnd(l string, i int) int {
	if DigitsEnd(l, i) != i+4 || !HasAt(l, i+4, "-") || DigitsEnd(l, i+5) != i+7 || !HasAt(l, i+7, "-") || DigitsEnd(l, i+8) != i+10 {
		return -1
	}
	return i + 10
}

// timeEnd matches HH:MM:SS[.,frac] at i (SS may be longer) and returns its end or -1.
func timeEnd(l string, i int) int {
	if DigitsEnd(l, i) != i+2 || !HasAt(l, i+2, ":") || DigitsEnd(l, i+3) != i+5 || !HasAt(l, i+5, ":") {
		return -1
	}
	j := DigitsEnd(l, i+6)
	if j < i+8 {
		return -1
	}
	if j < len(l) && (l[j] == '.' || l[j] == ',') {
		if k := DigitsEnd(l, j+1); k > j+1 {
			j = k
		}
	}
	return j
}

func isMonth(m string) bool {
	return len(m) == 3 && strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", m)%3 == 0
}

// StripLevel strips a line's log headers; level is the innermost stated (an outer one is a launcher's re-logging).
func StripLevel(line string) (rest string, level byte, stripped bool) {
	for range 8 {
		l := strings.TrimLeft(line, " \t\r")
		n, lv := header(l)
		if n == 0 {
			return line, level, stripped
		}
		if lv != 0 {
			level = lv
		}
		line, stripped = l[n:], true
	}
	return line, level, stripped
}

// NamesNativeSource reports whether line's header names a C++ or CUDA file.
func NamesNativeSource(line string) bool {
	head := line[:min(len(line), 160)]
	return slices.ContainsFunc([]string{".cc:", ".h:", ".cpp:", ".cu:"},
		func(src string) bool { return strings.Contains(head, src) })
}

// isLevel: a native header's level letter (glog's "E0528", TSL's ": E ").
func isLevel(c byte) bool { return c == 'I' || c == 'W' || c == 'E' || c == 'F' }

// LevelOfWord is the level letter of a level word ("WARNING": 'W'), else 0.
func LevelOfWord(w string) byte {
	switch w {
	case "INFO":
		return 'I'
	case "WARNING", "WARN":
		return 'W'
	case "ERROR":
		return 'E'
	case "CRITICAL", "FATAL":
		return 'F'
	case "DEBUG":
		return 'D'
	}
	return 0
}

// DigitsEnd returns the end of the run of digits at s[i:].
func DigitsEnd(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// HasAt reports whether s holds p at i.
func HasAt(s string, i int, p string) bool {
	return i >= 0 && i <= len(s) && strings.HasPrefix(s[i:], p)
}

// IsWordByte reports whether c is an ASCII letter, digit or underscore.
func IsWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }
