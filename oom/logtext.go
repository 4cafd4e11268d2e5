// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// What the failure stage and explain read of a record's text the way the
// recogniser reads it: one definition each, in internal/logtext.

// Raised reports whether text holds a status the program raised: a Python
// traceback ("Traceback (most recent call last)") anywhere, or a line that
// starts with a dotted Python name ending in Error or Exception, then ": "
// ("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: ...").
func Raised(text string) bool { return logtext.Raised(text) }

// HeaderTime reads the time of a record's log header (absl/glog "E1126
// 11:16:43.148", TSL/ISO "2025-09-12 07:02:43,118", vLLM "ERROR 09-12
// 07:23:02", behind a Ray prefix) from the month and day on, to the
// fraction of a second, in the year 2000: a year is not always printed, so
// only the gap between two records of one job means anything (a gap across
// New Year reads as negative), or a caller gives it the year it knows.
func HeaderTime(text string) (time.Time, bool) {
	if i := strings.Index(text, ") "); i > 0 && text[0] == '(' && i < 64 {
		text = text[i+2:] // "(EngineCore_DP0 pid=896988) "
	}
	var month, day, clock int
	switch {
	case shapeAt(text, 0, "####-##-##?##:##:##"):
		month, day, clock = 5, 8, 11
	case text != "" && strings.IndexByte("IWEF", text[0]) >= 0 && shapeAt(text, 1, "#### ##:##:##"):
		month, day, clock = 1, 3, 6
	default:
		sp := strings.IndexByte(text, ' ')
		if sp < 0 || !shapeAt(text, sp, " ##-## ##:##:##") {
			return time.Time{}, false
		}
		month, day, clock = sp+1, sp+4, sp+7
	}
	num := func(i int) int { return int(text[i]-'0')*10 + int(text[i+1]-'0') }
	nanos, end := 0, clock+8
	if end < len(text) && (text[end] == '.' || text[end] == ',') {
		digits, _ := logtext.LeadingDigits(text[end+1 : min(len(text), end+10)])
		for i := range 9 {
			nanos *= 10
			if i < len(digits) {
				nanos += int(digits[i] - '0')
			}
		}
	}
	return time.Date(2000, time.Month(num(month)), num(day), num(clock), num(clock+3), num(clock+6), nanos, time.UTC), true
}

// shapeAt reports whether s holds pattern at i: '#' is an ASCII digit, '?'
// a space or 'T', any other byte itself.
func shapeAt(s string, i int, pattern string) bool {
	if i < 0 || len(s)-i < len(pattern) {
		return false
	}
	for j := 0; j < len(pattern); j++ {
		c, p := s[i+j], pattern[j]
		if p == '#' && !logtext.IsDigit(c) || p == '?' && c != ' ' && c != 'T' || p != '#' && p != '?' && c != p {
			return false
		}
	}
	return true
}
