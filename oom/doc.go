// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package oom recognises XLA out-of-memory failures in log text, parses every
// size in them to bytes, classifies them against the OpenXLA error catalog and
// advises what to do. It has no OpenTelemetry Collector types, so the processor,
// the connector and any other tool can share it.
//
// Use MayContain on every record (it is about as cheap as one
// strings.Contains and allocates nothing) and Recognize on those it passes;
// Recognizer.Find reads a text's failure, else its memory-pressure warning,
// from one flattening.
//
// This package is the face: the Recognizer and the walk of one record through
// the layers under internal/, in data-flow order (a package imports only
// those before it, TestLayers checks):
//
//   - logtext: a record becomes statements (escapes, headers and their levels,
//     hard wraps, flattening) and the prefilter behind MayContain;
//   - speaker: who printed each statement, XLA's stack or another program,
//     recorded while flattening;
//   - families/grammar, families/details, families/breakdown, families,
//     families/generic: message grammars turned into facts (Report): what a
//     family is, what surrounds any family, memory breakdowns, the entries one
//     per message format, and the last-resort layer for a failure no family
//     knows;
//   - verdict: which statement is the failure, an attempt, a warning or
//     nothing, decided in one table;
//   - diagnosis: the catalog's names, the cause, the advice and its action
//     kind, the retry verdict.
//
// api.go gives the names of those layers that callers use (Report, Size,
// Warning, the constants).
package oom
