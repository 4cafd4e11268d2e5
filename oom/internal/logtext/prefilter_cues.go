// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

// StatusCues are the words around any family's message: a status code, an
// exception or error name, a driver's out-of-memory error. The catalog's code
// names are added by prefilterCues.
var StatusCues = []Cue{
	{Text: "RESOURCE_EXHAUSTED"},
	{Text: "Resource exhausted"},
	{Text: "ResourceExhausted"},
	{Text: "RuntimeError"},
	{Text: "ERROR_OUT_OF_MEMORY"}, // CUDA_ERROR_OUT_OF_MEMORY
	{Text: "ERROR_OutOfMemory"},   // HIP_ERROR_OutOfMemory
	InternalMemoryCue,
}

// InternalMemoryCue is the cue of an INTERNAL status that speaks of memory
// ("INTERNAL: Out of memory", "INTERNAL: 'memref.alloca' op ..."), which is
// what str(e) of an
// XlaRuntimeError prints for such failures; one near word serves them all
// (one search of the text after the status).
var InternalMemoryCue = Cue{Text: "INTERNAL", Near: "mem"}

// HostCues let the host-memory kill lines that hold a scan key through the
// same one pass, so that the processor reads them (package hostoom) at no
// measurable cost to ordinary records: the kernel's "Killed process" and
// "oom_reaper" figures ("…kB, file-rss:"), its memory cgroup's "memory:
// usage …kB, limit", the oom-kill summary's CONSTRAINT_, earlyoom's
// "sending SIGTERM to process" and "… MiB, cmdline" (1.7+), Ray's "…GB /
// …GB". Each was chosen by its cost on ordinary lines (BENCHMARKS.md,
// "Host-memory kills"): "invoked oom-killer" (its gfp names) and Ray's "GB)"
// cost 1-4 % and are left out. The XLA recogniser finds no failure in them
// (hostoom's tests check both).
var HostCues = []Cue{
	{Text: "kB, file-rss:"},
	{Text: "kB, limit #"},
	{Text: "CONSTRAINT_"},
	{Text: "SIGTERM to process"},
	{Text: "MiB, cmdline"},
	{Text: "GB / #"},
}
