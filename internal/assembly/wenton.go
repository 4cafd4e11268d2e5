// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// A program that catches its own OOM (a batch-size search) goes on printing:
// after wentOnLines lines of its own and no sign of dying, its failure closes
// as ClosedWentOn (no failure record); at wentOnEarly lines, at once.
const (
	wentOnLines = 3
	wentOnEarly = 32
)

// readOutput counts the program's own lines in text and notes a sign of its
// dying; the report's indented and native lines cost two checks a line.
func (b *building) readOutput(text string) {
	for line := range strings.Lines(text) {
		if b.dying {
			return
		}
		line = strings.TrimRight(line, " \t\r\n")
		if line == "" || line[0] == ' ' || line[0] == '\t' || logheader.NamesNativeSource(line) {
			continue
		}
		switch {
		case dying(line):
			b.dying = true
		case ownOutput(line):
			b.ownAfter++
		}
	}
}

// wentOn reports whether the program went on after the failure.
func (b *building) wentOn(lines int) bool { return !b.dying && b.ownAfter >= lines }

// ownOutput: none of the report's unindented lines, nothing the prefilter passes.
func ownOutput(line string) bool {
	return !slices.ContainsFunc(reportLines, func(p string) bool { return strings.HasPrefix(line, p) }) &&
		!hostoom.Recognizer().MayContain(line)
}

// reportLines start the header-less unindented lines of XLA's reports.
var reportLines = []string{
	"If this is caused", "Current allocation summary", "Hint:", "allocation ", "value: ",
	"Limit:", "InUse:", "MaxInUse:", "NumAllocs:", "MaxAllocSize:", "Reserved:", "PeakReserved:",
	"PeakAllocated:", "LargestFreeBlock:", "Histogram of",
	"Largest program allocations", "Total hbm usage", "Program hbm requirement", "Memory usage",
	"The above exception", "During handling", "For simplicity", "---", "===",
}

// dyingSigns are what a program prints as it dies.
var dyingSigns = []string{
	"Traceback (most recent call last)", frameAnchor,
	"*** ", "PC: @", "Fatal Python error", "terminate called", "core dumped", "Aborted", "Segmentation fault",
}

// dying reports whether line shows its program dying.
func dying(line string) bool {
	return slices.ContainsFunc(dyingSigns, func(s string) bool { return strings.Contains(line, s) })
}
