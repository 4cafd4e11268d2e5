// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"math"
	"strconv"
	"strings"
)

// Helpers the grammar uses to turn matched text into Report fields.

func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// exact prefers the exact byte count a message prints next to a rounded human
// size ("1.97GiB (rounded to 2110783744)", "32.00MiB (33554432B)").
func exact(human, bytes string) Size {
	if bytes != "" {
		return parseSizeToken(bytes)
	}
	return parseSizeToken(human)
}

// addSizes adds two known sizes; the sum is unknown if either is, or if it overflows.
func addSizes(a, b Size) Size {
	if !a.Known || !b.Known || (b.Bytes > 0 && a.Bytes > math.MaxInt64-b.Bytes) || (b.Bytes < 0 && a.Bytes < math.MinInt64-b.Bytes) {
		return Size{}
	}
	return KnownSize(a.Bytes + b.Bytes)
}

// allocatorBackend reads the backend from an allocator name (GPU_0_bfc,
// gpu_async_1, cuda_host_bfc, ...).
func allocatorBackend(name string) string {
	l := strings.ToLower(name)
	switch {
	case strings.Contains(l, "gpu"), strings.Contains(l, "cuda"), strings.Contains(l, "rocm"), strings.Contains(l, "hip"):
		return BackendGPU
	case strings.Contains(l, "tpu"):
		return BackendTPU
	case strings.Contains(l, "cpu"):
		return BackendCPU
	}
	return ""
}

// allocatorDevice reads the device ordinal from an allocator name: the first
// all-digit part between underscores (GPU_0_bfc -> 0, gpu_async_1 -> 1).
func allocatorDevice(name string) string {
	for part := range strings.SplitSeq(name, "_") {
		if part != "" && digitsEnd(part, 0) == len(part) {
			return part
		}
	}
	return ""
}

// sparseCoreSpace names a SparseCore memory space id (E3000 doc); an unknown
// id is kept as printed.
func sparseCoreSpace(id string) string {
	switch id {
	case "0":
		return "smem"
	case "201":
		return "tilespmem"
	case "202":
		return "spmem"
	case "203":
		return "hbm"
	case "204":
		return "sync_flags"
	}
	return id
}

func setString(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

func setSize(dst *Size, v string) {
	if !dst.Known {
		*dst = parseSizeToken(v)
	}
}

func setReplica(r *Report, v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && !r.HasReplica {
		r.Replica, r.HasReplica = n, true
	}
}

func setPartition(r *Report, v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && !r.HasPartition {
		r.Partition, r.HasPartition = n, true
	}
}

// leadingDigits splits s into its leading decimal digits and the rest.
func leadingDigits(s string) (digits, rest string) {
	k := digitsEnd(s, 0)
	return s[:k], s[k:]
}

// quoted returns the text between a leading ' and the next ', or "".
func quoted(s string) string {
	if !strings.HasPrefix(s, "'") {
		return ""
	}
	if e := strings.IndexByte(s[1:], '\''); e > 0 {
		return s[1 : 1+e]
	}
	return ""
}

// chipID returns the TPU chip coordinates ("0x0x1") that end before, or "".
func chipID(before string) string {
	k := len(before)
	for k > 0 && (before[k-1] >= '0' && before[k-1] <= '9' || before[k-1] == 'x') {
		k--
	}
	id := before[k:]
	parts := strings.Split(id, "x")
	if len(parts) != 3 {
		return ""
	}
	for _, p := range parts {
		if p == "" || digitsEnd(p, 0) != len(p) {
			return ""
		}
	}
	return id
}

// codeInURL reads the code from the text after "openxla.org/xla/errors":
// "/error_1000" or "#e1000".
func codeInURL(after string) string {
	var rest string
	if r, ok := strings.CutPrefix(after, "/error_"); ok {
		rest = r
	} else if len(after) > 2 && after[0] == '#' && (after[1] == 'e' || after[1] == 'E') {
		rest = after[2:]
	} else {
		return ""
	}
	if digitsEnd(rest, 0) != 4 {
		return ""
	}
	return "E" + rest[:4]
}

// summaryField returns the size token after label in a comma-separated
// "label value, label value" list that ends with its line, or "".
func summaryField(s, label string) string {
	line, _, _ := strings.Cut(s, "\n")
	_, after, ok := strings.Cut(line, label)
	if !ok {
		return ""
	}
	tok, _, _ := strings.Cut(after, ",")
	if len(tok) > 24 {
		return ""
	}
	return strings.TrimSpace(tok)
}
