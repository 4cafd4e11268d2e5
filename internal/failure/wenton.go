// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package failure

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// A program that catches its own OOM (a batch-size search, a fallback to a
// smaller shape) logs the allocator's report, raises nothing, and goes on
// printing its own output. A failure that no raised status closed, after
// whose last statement the program printed wentOnLines lines of its own and
// showed no sign of dying, closes as ClosedWentOn: the job did not fail of
// it, and no failure record is made. One that goes on for wentOnEarly lines
// closes then, so that it does not stay open while the program runs. A
// status raised later is a statement, and opens a failure of its own.
const (
	wentOnLines = 3
	wentOnEarly = 32
)

// readOutput counts the lines of text that read as the program's own
// output, and notes a sign of its dying. An indented line (a frame, a dump
// or breakdown line) and one with a native runtime log header (a C++
// source file: the allocator's dump) are the report's: they are passed
// over first, so that a 10,000-line dump costs two checks a line.
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

// ownOutput reports whether an unindented line without a native header
// reads as the program's own output: none of the report's own unindented
// lines, no XLA memory vocabulary (the recogniser's prefilter).
func ownOutput(line string) bool {
	for _, p := range reportLines {
		if strings.HasPrefix(line, p) {
			return false
		}
	}
	return !hostoom.Recognizer().MayContain(line)
}

// reportLines start the unindented lines of XLA's and TensorFlow's reports
// that a log header does not start: the BFC allocator's hints and Stats,
// the BufferAssignment dump, the TPU breakdown, chained exceptions.
var reportLines = []string{
	"If this is caused", "Current allocation summary", "Hint:", "allocation ", "value: ",
	"Limit:", "InUse:", "MaxInUse:", "NumAllocs:", "MaxAllocSize:", "Reserved:", "PeakReserved:",
	"PeakAllocated:", "LargestFreeBlock:", "Histogram of",
	"Largest program allocations", "Total hbm usage", "Program hbm requirement", "Memory usage",
	"The above exception", "During handling", "For simplicity", "---", "===",
}

// dyingSigns are what a program prints as it dies rather than goes on: a
// Python traceback, a fatal signal's or a failed check's report.
var dyingSigns = []string{
	"Traceback (most recent call last)", frameAnchor,
	"*** ", "PC: @", "Fatal Python error", "terminate called", "core dumped", "Aborted", "Segmentation fault",
}

// dying reports whether line shows its program dying.
func dying(line string) bool {
	for _, s := range dyingSigns {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}
