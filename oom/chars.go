// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"
	"strings"
)

// Byte, digit and quoted-word helpers the whole package shares.

var spaceTab = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, '\v': true, '\f': true}

func isSpace(c byte) bool { return spaceTab[c] }

func digitsEnd(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func hasAt(s string, i int, p string) bool {
	return i >= 0 && i <= len(s) && strings.HasPrefix(s[i:], p)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func trimSpaceRight(s string) string {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// leadingDigits splits s into its leading decimal digits and the rest.
func leadingDigits(s string) (digits, rest string) {
	k := digitsEnd(s, 0)
	return s[:k], s[k:]
}

// quoted returns the text between a leading ' and the next ', or "".
func quoted(s string) string {
	if !strings.HasPrefix(s, "'") {
		return ""
	}
	if e := strings.IndexByte(s[1:], '\''); e > 0 {
		return s[1 : 1+e]
	}
	return ""
}
