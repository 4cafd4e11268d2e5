// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package logtext turns a log record into the one line the grammars read (escapes undone, headers stripped and
// their levels kept, hard wraps joined, whitespace folded) and holds the prefilter run on every record. It knows
// no family and no speaker.
package logtext
