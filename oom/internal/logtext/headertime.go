// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"strings"
	"time"
)

// HeaderTime reads the time of a record's log header (absl/glog "E1126
// 11:16:43.148", TSL/ISO "2025-09-12 07:02:43", vLLM "ERROR 09-12
// 07:23:02", behind a Ray prefix) from the month and day on, as the Unix
// time of that moment in the year 2000: a year is not always printed, so
// only the gap between two records of one job means anything (a gap across
// New Year reads as negative).
func HeaderTime(text string) (int64, bool) {
	if i := strings.Index(text, ") "); i > 0 && text[0] == '(' && i < 64 {
		text = text[i+2:] // "(EngineCore_DP0 pid=896988) "
	}
	var month, day, clock int
	switch {
	case shapeAt(text, 0, "####-##-##?##:##:##"):
		month, day, clock = 5, 8, 11
	case text != "" && isLevel(text[0]) && shapeAt(text, 1, "#### ##:##:##"):
		month, day, clock = 1, 3, 6
	default:
		sp := strings.IndexByte(text, ' ')
		if sp < 0 || !shapeAt(text, sp, " ##-## ##:##:##") {
			return 0, false
		}
		month, day, clock = sp+1, sp+4, sp+7
	}
	num := func(i int) int { return int(text[i]-'0')*10 + int(text[i+1]-'0') }
	t := time.Date(2000, time.Month(num(month)), num(day), num(clock), num(clock+3), num(clock+6), 0, time.UTC)
	return t.Unix(), true
}

// shapeAt reports whether s holds pattern at i: '#' is an ASCII digit, '?'
// a space or 'T', any other byte itself.
func shapeAt(s string, i int, pattern string) bool {
	if i < 0 || len(s)-i < len(pattern) {
		return false
	}
	for j := 0; j < len(pattern); j++ {
		c, p := s[i+j], pattern[j]
		if p == '#' && !IsDigit(c) || p == '?' && c != ' ' && c != 'T' || p != '#' && p != '?' && c != p {
			return false
		}
	}
	return true
}
