// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Raised reports whether text holds a status the program raised (a Python traceback or "pkg.SomeError: ").
func Raised(text string) bool { return logtext.Raised(text) }

// LineStart is the agent's multiline.line_start_pattern (logheader.LineStart).
const LineStart = logheader.LineStart

// StartsRecord reports whether line starts with a log header (LineStart).
func StartsRecord(line string) bool { return logheader.StartsRecord(line) }

// HeaderTime reads the time of a record's log header (logheader.Time).
func HeaderTime(text string) (time.Time, bool) { return logheader.Time(text) }
