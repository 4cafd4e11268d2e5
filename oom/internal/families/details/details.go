// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package details reads what can surround any family's message: replica, program, device and allocator
// figures, error-code tokens (codes.go), the BFC dump (allocator_summary.go), guards and backend evidence.
package details

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// detail is a phrase that fills fields the record's failure left empty; it
// is short and fixed, so Read uses string operations, not a regexp.
type detail struct {
	Anchor string
	Read   func(r *grammar.Report, before, after string)
}

// DetailSpan bounds the text a detail reads on each side of its anchor.
const DetailSpan = 256

// Details are read in order.
var Details = []detail{
	{ // pjrt log line: "Execution of replica 0 failed: RESOURCE_EXHAUSTED: ..."
		"Execution of replica ", func(r *grammar.Report, _, a string) {
			if n, rest := logtext.LeadingDigits(a); n != "" && strings.HasPrefix(rest, " failed") {
				setInt(&r.Replica, &r.HasReplica, n)
			}
		},
	},
	{ // "...: while running replica 0 and partition 34 of a replicated computation (other replicas may have failed as well)."
		// Old PyLocalClient text lacks a space: "of areplicated computation".
		"while running replica ", func(r *grammar.Report, _, a string) {
			rep, rest := logtext.LeadingDigits(a)
			rest, ok := strings.CutPrefix(rest, " and partition ")
			part, rest := logtext.LeadingDigits(rest)
			if rep != "" && ok && part != "" &&
				(strings.HasPrefix(rest, " of a replicated computation") || strings.HasPrefix(rest, " of areplicated computation")) {
				setInt(&r.Replica, &r.HasReplica, rep)
				setInt(&r.Partition, &r.HasPartition, part)
			}
		},
	},
	{ // Program being loaded: "Error loading program 'jit_embedding_pipeline_step_fn': ..."
		"Error loading program", func(r *grammar.Report, _, a string) {
			a = strings.TrimPrefix(strings.TrimPrefix(a, " "), "[")
			SetString(&r.Program, logtext.Quoted(a))
		},
	},
	{ // Status payload: "[executable_name='jit_train_step']"
		"[executable_name=", func(r *grammar.Report, _, a string) {
			if name := logtext.Quoted(a); name != "" && strings.HasPrefix(a[len(name)+2:], "]") {
				SetString(&r.Program, name)
			}
		},
	},
	{ // PyTorch/XLA: "Exception in device=TPU:6: RESOURCE_EXHAUSTED: ..."
		"Exception in device=", func(r *grammar.Report, _, a string) {
			k := 0
			for k < len(a) && (a[k] >= 'A' && a[k] <= 'Z' || a[k] >= 'a' && a[k] <= 'z') {
				k++
			}
			if n, _ := logtext.LeadingDigits(a[min(k+1, len(a)):]); k > 0 && logheader.HasAt(a, k, ":") && n != "" {
				SetString(&r.Device, a[:k+1+len(n)])
			}
		},
	},
	{ // TPU memory id anywhere in the record: "(0x0x1_HBM0)", "(1x0x0_HBM0)", "0x3x0_HBM1"
		"_HBM", func(r *grammar.Report, b, a string) {
			n, _ := logtext.LeadingDigits(a)
			chip := chipID(b)
			if n != "" && chip != "" {
				SetString(&r.Device, chip+"_HBM"+n)
			}
		},
	},
	{ // cudaMallocAsync: " Reported by CUDA: Free memory/Total memory: 22635544576/85095874560"
		"Free memory/Total memory: ", func(r *grammar.Report, _, a string) {
			if free, total, ok := CUDAFreeTotal(a); ok {
				setSize(&r.Free, free)
				setSize(&r.Capacity, total)
			}
		},
	},
	{ // GPU autotuning (compilation) that ran out of memory: "Failed to get configs for: 3 out of 3
		// instructions. See logs for all failures. Example failure: Out of memory while trying to allocate ..."
		"Failed to get configs for", func(r *grammar.Report, _, _ string) { r.Phase = grammar.PhaseCompile },
	},
	{ // the per-instruction log line: "Could not get config for HLO: %fusion = ... Status: RESOURCE_EXHAUSTED: Out of memory ..."
		"Could not get config for HLO", func(r *grammar.Report, _, _ string) { r.Phase = grammar.PhaseCompile },
	},
	{ // XRT-era program-load breakdown: "HBM capacity 8.00G:"
		"HBM capacity ", func(r *grammar.Report, _, a string) {
			if tok, _, ok := strings.Cut(a, ":"); ok && len(tok) <= 24 && grammar.ParseSizeToken(tok).Known {
				setSize(&r.Capacity, tok)
				SetString(&r.MemorySpace, "hbm")
			}
		},
	},
}

// Error-code tokens: "E1000: CompileTimeHbmOom:\n<msg>\nSee
// https://openxla.org/xla/errors/error_1000 for more details."; older builds
// appended "https://openxla.org/xla/errors#e1000"; some print the bare name.
var (
	codeNameEnds = []string{"Oom:", "Failure:", "Exhausted:"} // how every catalog name ends
	codeURL      = "openxla.org/xla/errors"                   // then "/error_1000" or "#e1000"
)

// Guards are phrases that, right before a match in the same sentence, show
// that the allocation failure was not fatal or not a device OOM.
var Guards = []string{
	"Failed to determine best cudnn convolution algorithm", // the autotuner falls back to another algorithm
	"Failed to find best cuBLAS algorithm",                 // the GEMM autotuner falls back likewise (an early-warning kind)
	"CUDA backend failed to initialize",                    // JAX start-up warning, not an OOM of a program
}

// Figures and names that reveal the backend when the failure's own text does
// not (checked in order; the first backend with a hit wins, ties leave it out).
var backendEvidence = []struct {
	backend string
	tokens  []string
}{
	{grammar.BackendTPU, []string{"XLA:TPU", "_HBM", "SparseCore", "TensorCore", "libtpu", "device=TPU:", "/job:tpu_worker", "tpu_execute", "TPU:"}},
	{grammar.BackendGPU, []string{"GPU_", "gpu_", "GPU:", "CUDA", "cuda_", "cuMem", "cudaMalloc", "HIP_", "ROCm", "rocm", "device ordinal", "BufferAssignment OOM Debugging", "NVIDIA"}},
	{grammar.BackendCPU, []string{"TFRT_CPU", "cpu_client", "/device:CPU:"}},
}

// chipID returns the TPU chip coordinates ("0x0x1") that end before, or "".
func chipID(before string) string {
	k := len(before)
	for k > 0 && (before[k-1] >= '0' && before[k-1] <= '9' || before[k-1] == 'x') {
		k--
	}
	id := before[k:]
	if parts := strings.Split(id, "x"); len(parts) != 3 || slices.Contains(parts, "") {
		return "" // each part is digits, by the scan above
	}
	return id
}

// CUDAFreeTotal splits CUDA's "F/T" after "Free memory/Total memory: ".
func CUDAFreeTotal(a string) (free, total string, ok bool) {
	free, rest := logtext.LeadingDigits(a)
	total, _ = logtext.LeadingDigits(strings.TrimPrefix(rest, "/"))
	return free, total, free != "" && total != "" && strings.HasPrefix(rest, "/")
}

// guardSpan bounds the guarded sentence before a match.
const guardSpan = 1000

// Guarded reports whether a guard phrase stands just before at, in the same
// sentence: the match is then a fallback or a start-up warning.
func Guarded(s string, at int) bool {
	w := s[max(0, at-guardSpan):at]
	for _, g := range Guards {
		if !strings.Contains(w, g) {
			continue
		}
		if k := strings.LastIndex(w, g); !strings.Contains(w[k+len(g):], ". ") {
			return true
		}
	}
	return false
}

// EvidenceBackend returns the one backend whose evidence the text shows, or "".
func EvidenceBackend(s string) string {
	found := ""
	for _, ev := range backendEvidence {
		if slices.ContainsFunc(ev.tokens, func(t string) bool { return strings.Contains(s, t) }) {
			if found != "" {
				return "" // evidence for two backends: do not guess
			}
			found = ev.backend
		}
	}
	return found
}
