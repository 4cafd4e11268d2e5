// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package logtext turns a log record into the one line the grammars read
// (flatten.go: escapes undone, log headers stripped and their levels kept,
// hard wraps joined, whitespace folded), and holds the prefilter, the cheap
// first pass run on every record (prefilter*.go, keyscan.go). It knows no
// family and no speaker: the recogniser hands it the cues, the words a wrap
// may split and StatementMarks.
package logtext
