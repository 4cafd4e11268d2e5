// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

// StatusCues are the words around any family's message: a status code, an exception or error name, a driver's
// out-of-memory error. The catalog's code names are added by prefilterCues.
var StatusCues = []Cue{
	{Text: "RESOURCE_EXHAUSTED"},
	{Text: "Resource exhausted"},
	{Text: "ResourceExhausted"},
	{Text: "RuntimeError"},
	{Text: "ERROR_OUT_OF_MEMORY"}, // CUDA_ERROR_OUT_OF_MEMORY
	{Text: "ERROR_OutOfMemory"},   // HIP_ERROR_OutOfMemory
	InternalMemoryCue,
}

// InternalMemoryCue is the cue of an INTERNAL status that speaks of memory ("INTERNAL: Out of memory", "INTERNAL:
// 'memref.alloca' op ..."), what str(e) of an XlaRuntimeError prints for such failures; one near word serves them all
// (one search of the text after the status).
var InternalMemoryCue = Cue{Text: "INTERNAL", Near: "mem"}
