// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import "strings"

// CRIPrefix returns the length of a CRI line prefix ("<time> stderr F ") or 0, and whether the next continues it.
func CRIPrefix(l string) (n int, partial bool) {
	if len(l) < 20 || l[4] != '-' || l[10] != 'T' || !IsDigit(l[0]) {
		return 0, false
	}
	sp := strings.IndexByte(l[:min(len(l), 48)], ' ')
	if sp < 0 {
		return 0, false
	}
	rest := l[sp+1:]
	if !strings.HasPrefix(rest, "stdout ") && !strings.HasPrefix(rest, "stderr ") {
		return 0, false
	}
	rest = rest[len("stdout "):]
	if len(rest) == 0 || rest[0] != 'F' && rest[0] != 'P' {
		return 0, false
	}
	switch {
	case len(rest) == 1: // an empty line
		return len(l), rest[0] == 'P'
	case rest[1] == ' ':
		return len(l) - len(rest) + 2, rest[0] == 'P'
	}
	return 0, false
}

// TimestampPrefix returns the length of the prefix that `kubectl logs --timestamps` (and `docker logs -t`) writes
// before each line, "2024-04-29T14:55:41.678628123Z " (RFC 3339 with nine fraction digits: RFC3339NanoFixed), or 0.
func TimestampPrefix(l string) int {
	const shape = "dddd-dd-ddTdd:dd:dd.ddddddddd"
	if len(l) < len(shape)+1 {
		return 0
	}
	for i := range len(shape) {
		if c := shape[i]; c == 'd' && !IsDigit(l[i]) || c != 'd' && l[i] != c {
			return 0
		}
	}
	n := len(shape)
	switch {
	case l[n] == 'Z':
		n++
	case (l[n] == '+' || l[n] == '-') && len(l) >= n+6 && IsDigit(l[n+1]) && IsDigit(l[n+2]) && l[n+3] == ':' &&
		IsDigit(l[n+4]) && IsDigit(l[n+5]):
		n += 6
	default:
		return 0
	}
	switch {
	case n == len(l): // an empty line whose space a paste trimmed
		return n
	case l[n] != ' ':
		return 0
	}
	return n + 1
}
