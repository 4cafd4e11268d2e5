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
// the layers under internal/ (ARCHITECTURE.md; TestLayers checks their
// order). api.go gives the names of those layers that callers use.
package oom
