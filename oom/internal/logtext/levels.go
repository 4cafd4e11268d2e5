// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

// Log levels of the lines of a record. An allocator or driver line logged at
// INFO is a retry the runtime survives, not a failure: StreamExecutor logs
// "failed to allocate X (N bytes) from device: CUDA_ERROR_OUT_OF_MEMORY" at
// INFO while the BFC allocator backs off to a smaller pool at start-up (the
// same line at ERROR, in older builds, is the failure). flatten strips the
// headers that carry the level, so it records where the INFO lines lie.

// InfoLines lists the spans of the flattened text that came from lines
// logged at INFO, merged where adjacent. It holds a fixed number of spans
// (no allocation); lines past that are not recorded, so they count as not
// INFO: a log-only line there is read as before.
type InfoLines struct {
	spans [16][2]int
	n     int
}

func (l *InfoLines) add(from, to int) {
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

// Contains reports whether position i of the flattened text lies on an INFO line.
func (l *InfoLines) Contains(i int) bool {
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

// isLevel: a native header's level letter (glog's "E0528", TSL's ": E ").
func isLevel(c byte) bool { return c == 'I' || c == 'W' || c == 'E' || c == 'F' }

// HeaderLevel is the level that header, the log headers stripped from a
// line, states: that of the innermost one that states one, 0 for none.
func HeaderLevel(header string) byte {
	_, lv, _ := StripHeadersLevel(header)
	return lv
}

// LevelOfWord is the level letter (I, W, E, F, D) of a level word as
// loggers print it ("INFO", "WARNING", ...), 0 for any other word.
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
