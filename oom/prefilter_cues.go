// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// statusCues are the words around any family's message: a status code, an
// exception or error name, a driver's out-of-memory error. The catalog's code
// names are added by prefilterCues.
var statusCues = []cue{
	{text: "RESOURCE_EXHAUSTED"},
	{text: "Resource exhausted"},
	{text: "ResourceExhausted"},
	{text: "RuntimeError"},
	{text: "ERROR_OUT_OF_MEMORY"}, // CUDA_ERROR_OUT_OF_MEMORY
	{text: "ERROR_OutOfMemory"},   // HIP_ERROR_OutOfMemory
	internalMemoryCue,
}

// internalMemoryCue: an INTERNAL status that speaks of memory ("INTERNAL:
// Out of memory", "INTERNAL: 'memref.alloca' op ...") is what str(e) of an
// XlaRuntimeError prints for such failures; one near word serves them all
// (one search of the text after the status).
var internalMemoryCue = cue{text: "INTERNAL", near: "mem"}

// prefilterCues is every cue MayContain lets through, in order: the status
// cues, the catalog's code names, then every entry's and the last-resort
// layer's (Recognizer.cues). The names without an 'R' or a 'B' (the
// CompileTime* ones) are not cues: XLA prints them only after
// "RESOURCE_EXHAUSTED: Ennnn: ".
func (z *Recognizer) prefilterCues() []cue {
	all := append([]cue(nil), statusCues...)
	for _, e := range catalog {
		if strings.ContainsAny(e.Name, "RB") {
			all = append(all, cue{text: e.Name})
		}
	}
	return append(all, z.cues()...)
}
