// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import "github.com/xlaoom/xlaoomprocessor/internal/logheader"

// InfoLines lists the flattened spans of lines logged at INFO, merged where adjacent: an allocator line at INFO
// is a retry the runtime survives. Spans past its fixed number count as not INFO.
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

// HeaderLevel is the level a line's stripped log headers state.
func HeaderLevel(header string) byte {
	_, lv, _ := logheader.StripLevel(header)
	return lv
}
