// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package logtext turns a log record into the statements the grammars read:
// escapes undone (escapes.go), log headers stripped and their levels kept
// (headers.go, levels.go), hard wraps joined (wrap.go), whitespace folded
// (flatten.go); and the prefilter, the cheap first pass run on every record
// (prefilter*.go, keyscan*.go). It knows no family and no speaker: the
// recogniser hands it the cues and the words a wrap may split, and the
// speaker layer's record of statements (statementMarks in flatten.go).
package logtext
