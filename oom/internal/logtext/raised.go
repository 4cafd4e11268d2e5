// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// TracebackHead is a Python traceback's first line.
const TracebackHead = "Traceback (most recent call last):"

// ExceptionLine reports whether l starts with a dotted Python name that ends in Error or Exception, then ": "
// ("jax.errors.JaxRuntimeError: ...", "XlaRuntimeError: ...", "ValueError: ...").
func ExceptionLine(l string) bool {
	i := 0
	for i < len(l) && (logheader.IsWordByte(l[i]) || l[i] == '.' && i > 0) {
		i++
	}
	name := l[:i]
	return i > 0 && !logheader.IsDigit(l[0]) && strings.HasPrefix(l[i:], ": ") &&
		(strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception"))
}

// RaisedLine is the one rule of a raised status: a traceback head (anywhere, colon perhaps cut) or an exception line.
func RaisedLine(line string) bool {
	return strings.Contains(line, TracebackHead[:len(TracebackHead)-1]) || ExceptionLine(strings.TrimLeft(line, " \t"))
}

// Raised reports whether text holds a Python traceback or an exception line (indented or not).
func Raised(text string) bool {
	for line := range strings.Lines(text) {
		if RaisedLine(line) {
			return true
		}
	}
	return false
}
