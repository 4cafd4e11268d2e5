// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import (
	"strings"
	"time"
)

// LineStart is the agent's multiline.line_start_pattern (examples/agent.yaml); StartsRecord and Time read it by hand.
const LineStart = `^(?:\([A-Za-z0-9_]+ pid=\d+\) )?(?:[IWEF]\d{4} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d)`

// StartsRecord reports whether line starts with a log header (LineStart).
func StartsRecord(line string) bool {
	_, ok := lineStart(line)
	return ok
}

// Time reads a record header's time (LineStart) in the year 2000: a year is not always printed, gaps are what count.
func Time(text string) (time.Time, bool) {
	month, ok := lineStart(text)
	if !ok {
		return time.Time{}, false
	}
	day, clock := month+3, month+6 // "MM-DD hh:mm:ss"
	if text[month+2] != '-' {
		day, clock = month+2, month+5 // glog's "MMDD hh:mm:ss"
	}
	num := func(i int) int { return int(text[i]-'0')*10 + int(text[i+1]-'0') }
	nanos, end := 0, clock+8
	if end < len(text) && (text[end] == '.' || text[end] == ',') {
		digits := text[end+1 : DigitsEnd(text[:min(len(text), end+10)], end+1)]
		for i := range 9 {
			nanos *= 10
			if i < len(digits) {
				nanos += int(digits[i] - '0')
			}
		}
	}
	return time.Date(2000, time.Month(num(month)), num(day), num(clock), num(clock+3), num(clock+6), nanos, time.UTC), true
}

// lineStart returns where the month ("MM-DD" or glog's "MMDD") starts.
func lineStart(text string) (month int, ok bool) {
	at := 0
	if text != "" && text[0] == '(' { // "(EngineCore_DP0 pid=896988) "
		i := 1
		for i < len(text) && IsWordByte(text[i]) {
			i++
		}
		if i == 1 || !shapeAt(text, i, " pid=#") {
			return 0, false
		}
		i = DigitsEnd(text, i+len(" pid="))
		if !shapeAt(text, i, ") ") {
			return 0, false
		}
		at = i + 2
	}
	switch {
	case shapeAt(text, at, "####-##-##?##:##:##"): // TSL, ISO, Python: "2025-09-12 07:00:03"
		return at + 5, true
	case at < len(text) && strings.IndexByte("IWEF", text[at]) >= 0 && shapeAt(text, at+1, "#### ##:##:##"): // absl/glog
		return at + 1, true
	}
	for _, level := range [...]string{"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"} { // vLLM "ERROR 09-12 07:23:02"
		if strings.HasPrefix(text[at:], level) {
			return at + len(level) + 1, shapeAt(text, at+len(level), " ##-## ##:##:##")
		}
	}
	return 0, false
}

// shapeAt reports whether s holds pattern at i: '#' is an ASCII digit, '*' a digit or a space, '?' a space or 'T',
// '^' an upper-case and '~' a lower-case ASCII letter, any other byte itself.
func shapeAt(s string, i int, pattern string) bool {
	if i < 0 || len(s)-i < len(pattern) {
		return false
	}
	for j := 0; j < len(pattern); j++ {
		if !shapeByte(s[i+j], pattern[j]) {
			return false
		}
	}
	return true
}

func shapeByte(c, p byte) bool {
	switch p {
	case '#':
		return IsDigit(c)
	case '*':
		return IsDigit(c) || c == ' '
	case '?':
		return c == ' ' || c == 'T'
	case '^':
		return c >= 'A' && c <= 'Z'
	case '~':
		return c >= 'a' && c <= 'z'
	}
	return c == p
}
