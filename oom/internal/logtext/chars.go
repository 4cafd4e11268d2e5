// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package logtext turns a log record into the one line the grammars read (escapes undone, headers stripped and
// their levels kept, hard wraps joined, whitespace folded) and holds the prefilter run on every record. It knows
// no family and no speaker.
package logtext

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

var spaceTab = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, '\v': true, '\f': true}

// IsSpace reports whether c is ASCII white space.
func IsSpace(c byte) bool { return spaceTab[c] }

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(s string, i int) int {
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	return i
}

func trimSpaceRight(s string) string {
	for len(s) > 0 && IsSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// Atoi returns s as a decimal number, 0 when it is not one.
func Atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// LeadingDigits splits s into its leading decimal digits and the rest.
func LeadingDigits(s string) (digits, rest string) {
	k := logheader.DigitsEnd(s, 0)
	return s[:k], s[k:]
}

// Quoted returns the text between a leading ' and the next ', or "".
func Quoted(s string) string {
	if !strings.HasPrefix(s, "'") {
		return ""
	}
	if e := strings.IndexByte(s[1:], '\''); e > 0 {
		return s[1 : 1+e]
	}
	return ""
}

// Shorten cuts s to at most n bytes and a "...", on a UTF-8 boundary.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
