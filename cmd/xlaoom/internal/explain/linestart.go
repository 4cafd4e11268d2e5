// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

// LineStart is the multiline.line_start_pattern of examples/agent.yaml (and
// the recombine is_first_entry of its container logs and of
// deploy/helm/agent-values.yaml): a log header (absl/glog, TSL/ISO/Python
// timestamps, vLLM level and date), optionally behind a vLLM/Ray process
// prefix. A line without one continues the record before it. Tests check
// that the configs carry this very pattern and that startsRecord matches
// exactly what it matches.
const LineStart = `^(?:\([A-Za-z0-9_]+ pid=\d+\) )?(?:[IWEF]\d{4} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d)`

// startsRecord reports whether line matches LineStart. It is written out by
// hand because it runs on every line: the regular expression took about half
// of the time of a whole explain run.
func startsRecord(l []byte) bool {
	if len(l) > 0 && l[0] == '(' { // "(EngineCore_DP0 pid=896988) "
		i := 1
		for i < len(l) && isWordByte(l[i]) {
			i++
		}
		if i == 1 || !shape(l, i, " pid=#") {
			return false
		}
		i += len(" pid=")
		for i < len(l) && isDigit(l[i]) {
			i++
		}
		if !shape(l, i, ") ") {
			return false
		}
		l = l[i+2:]
	}
	if len(l) == 0 {
		return false
	}
	switch c := l[0]; {
	case isDigit(c):
		return shape(l, 0, "####-##-##?##:##:##") // TSL, ISO, Python: "2025-09-12 07:00:03"
	case (c == 'I' || c == 'W' || c == 'E' || c == 'F') && shape(l, 1, "#### ##:##:##"): // absl/glog "E0912 07:01:12"
		return true
	}
	for _, level := range [...]string{"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"} { // vLLM "ERROR 09-12 07:23:02"
		if shape(l, 0, level) {
			return shape(l, len(level), " ##-## ##:##:##")
		}
	}
	return false
}

// shape reports whether l holds pattern at i: '#' is an ASCII digit, '?' a
// space or 'T', any other byte itself.
func shape(l []byte, i int, pattern string) bool {
	if len(l)-i < len(pattern) {
		return false
	}
	for j := 0; j < len(pattern); j++ {
		c := l[i+j]
		switch p := pattern[j]; p {
		case '#':
			if !isDigit(c) {
				return false
			}
		case '?':
			if c != ' ' && c != 'T' {
				return false
			}
		default:
			if c != p {
				return false
			}
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWordByte(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}
