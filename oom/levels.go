// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// Log levels of the lines of a record. An allocator or driver line logged at
// INFO is a retry the runtime survives, not a failure: StreamExecutor logs
// "failed to allocate X (N bytes) from device: CUDA_ERROR_OUT_OF_MEMORY" at
// INFO while the BFC allocator backs off to a smaller pool at start-up (the
// same line at ERROR, in older builds, is the failure). flatten strips the
// headers that carry the level, so it records where the INFO lines lie.

// infoLines lists the spans of the flattened text that came from lines
// logged at INFO, merged where adjacent. It holds a fixed number of spans
// (no allocation); lines past that are not recorded, so they count as not
// INFO: a log-only line there is read as before.
type infoLines struct {
	spans [16][2]int
	n     int
}

func (l *infoLines) add(from, to int) {
	if l == nil || from >= to {
		return
	}
	if l.n > 0 && l.spans[l.n-1][1] >= from-1 {
		l.spans[l.n-1][1] = to
		return
	}
	if l.n < len(l.spans) {
		l.spans[l.n] = [2]int{from, to}
		l.n++
	}
}

// contains reports whether position i of the flattened text lies on an INFO line.
func (l *infoLines) contains(i int) bool {
	if l == nil {
		return false
	}
	for k := range l.n {
		if l.spans[k][0] <= i && i < l.spans[k][1] {
			return true
		}
	}
	return false
}

// stripHeadersLevel strips a line's log headers (headerLen; hand-written, no
// regexp: it runs on every line of every record that reaches Recognize) and
// returns the rest, the level of the innermost header that states one ('I',
// 'W', 'E', 'F', 'D'; 0 for none) and whether any header was stripped. Nested headers
// ("I0922 … run_docker.py:193] 2021-09-22 …: E external/…] ") take the
// inner level: the outer one is the launcher's re-logging.
func stripHeadersLevel(line string) (rest string, level byte, stripped bool) {
	for range 8 {
		l := strings.TrimLeft(line, " \t\r")
		n := headerLen(l)
		if n == 0 {
			return line, level, stripped
		}
		if lv := headerLevel(l[:n]); lv != 0 {
			level = lv
		}
		line, stripped = l[n:], true
	}
	return line, level, stripped
}

// headerLevel returns the level a log header states, or 0.
func headerLevel(h string) byte {
	switch c := h[0]; {
	case isLevel(c) && glogHeader(h) > 0:
		return c // glog/absl: "I0528 …", "E external/…"
	case c >= 'A' && c <= 'Z':
		w := 0
		for w < len(h) && h[w] >= 'A' && h[w] <= 'Z' {
			w++
		}
		return levelOfWord(h[:w]) // "INFO:absl:", "ERROR 09-19 …"
	case isDigit(c):
		if i := strings.Index(h, ": "); i > 0 && i+3 < len(h) && isLevel(h[i+2]) && h[i+3] == ' ' {
			return h[i+2] // TSL: "2024-05-28 07:02:44.349554: W external/…"
		}
		if i := strings.Index(h, " - "); i > 0 {
			if j := strings.Index(h[i+3:], " - "); j >= 0 {
				rest := h[i+3+j+3:]
				if e := strings.Index(rest, " - "); e > 0 {
					return levelOfWord(rest[:e]) // Python logging
				}
			}
		}
	}
	return 0
}

func levelOfWord(w string) byte {
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
