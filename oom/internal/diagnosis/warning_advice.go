// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"math"
	"strconv"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// BackOff reports whether n refused requests that fell from first to last
// bytes are an allocator's back-off: XLA's BFC pool retries at 0.9 of the
// size; sizes are rounded as printed, so a step in 0.85-0.95 counts.
func BackOff(first, last int64, n int) bool {
	if n < 2 || first <= 0 || last <= 0 || last >= first {
		return false
	}
	step := math.Pow(float64(last)/float64(first), 1/float64(n-1))
	return step >= 0.85 && step <= 0.95
}

// WarningAdvice returns the steps for a warning that no failure followed
// (explain prints them), nil for a kind that has none. For an
// allocation_attempt w is one job's whole series: Requested the first
// request, Last the last refused one, Attempts how many.
func WarningAdvice(w *grammar.Warning) []string {
	if w.Kind != grammar.WarningAllocationAttempt {
		return nil
	}
	n := max(w.Attempts, 1)
	last := w.Requested
	if w.Last.Known {
		last = w.Last
	}
	var cause string
	switch {
	case w.Requested.Known && BackOff(w.Requested.Bytes, last.Bytes, n):
		cause = "XLA's memory pool asked for " + grammar.HumanBytes(w.Requested.Bytes) + " and backed off " + strconv.Itoa(n) +
			" times, still refused at " + grammar.HumanBytes(last.Bytes) + ": "
	case w.Requested.Known:
		cause = "The driver refused " + grammar.HumanBytes(w.Requested.Bytes) + oneOrMany(n, " (once)", " (first of "+strconv.Itoa(n)+" refusals)") + ": "
	default:
		cause = "The driver refused " + oneOrMany(n, "an allocation", strconv.Itoa(n)+" allocations") + ": "
	}
	cause += "less memory is free on this GPU than XLA asks for, because another process or a library in this process " +
		"(PyTorch, CuPy, TensorFlow) holds part of it, or XLA_PYTHON_CLIENT_MEM_FRACTION (default .75) asks for more than is free"
	if w.Free.Known && w.Capacity.Known {
		cause += " (CUDA reported " + grammar.HumanBytes(w.Free.Bytes) + " free of " + grammar.HumanBytes(w.Capacity.Bytes) + ")"
	}
	cause += ". The job runs on with less, and fails later if a step needs more than it got."
	return []string{
		cause,
		"Find the other holder: nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv lists the processes on the GPU; memory a library holds in the job's own process shows under the job's pid.",
		"If the GPU is shared on purpose, give each process its share: XLA_PYTHON_CLIENT_MEM_FRACTION below the fraction that is free (e.g. .45 for each of two jobs), and cap or release the other library's memory pool.",
		"XLA_PYTHON_CLIENT_PREALLOCATE=false grows the pool on demand instead of reserving it at start-up, but growth is refused and backs off the same way when the GPU is full, and on-demand allocation fragments more.",
	}
}

func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
