// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import "strings"

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
