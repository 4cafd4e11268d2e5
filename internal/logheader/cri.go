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
