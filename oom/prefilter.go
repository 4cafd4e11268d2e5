package oom

import "strings"

// MayContain reports whether text could hold an XLA OOM message. It is the
// cheap first pass run on every record: false means certainly not an OOM.
//
// Design (measured in bench_test.go): searching one needle with
// strings.Contains costs one SIMD strings.IndexByte pass over the record plus
// a branch per occurrence of the needle's first byte. Every extra pass costs
// as much again, and every hit on a common byte costs a mispredicted branch,
// so MayContain makes two IndexByte passes over bytes that are rare in
// ordinary log lines but present in every XLA OOM message:
//
//   - 'R': RESOURCE_EXHAUSTED, Resource exhausted, ResourceExhausted(Error),
//     Ran out of memory, Requires (early abort), RuntimeError and the
//     Runtime*AllocationFailure code names, CUDA_ERROR_OUT_OF_MEMORY,
//     HIP_ERROR_OutOfMemory, INTERNAL (SparseCore memref.alloca);
//   - 'B': a TSL/google3 size right after "allocate", "request for" or
//     "memory of" (GPU allocator lines that print no status code: the BFC
//     "ran out of memory trying to allocate 1.97GiB", "Failed to allocate
//     request for 32.00MiB (33554432B)", "failed to allocate 154.06GiB"), and
//     TPU memory ids such as 0x0x1_HBM0 (bare "Attempting to allocate" lines),
//     and the GPU "BufferAssignment OOM Debugging." dump.
//
// Each hit is confirmed in place (whitespace runs allowed between words, so a
// wrapped headline still passes) before MayContain says yes. It allocates
// nothing and costs about 1.4x one strings.Contains on ordinary lines
// (BenchmarkMayContainRatio); one strings.Contains per phrase costs ~25x.
//
// What it lets through that is not an OOM (gRPC RESOURCE_EXHAUSTED, Python
// RuntimeErrors, TensorFlow-native OOMs) Recognize rejects. What it misses:
// a family headline printed with no status code, no wrapper naming an error
// and no TPU id or TSL size, e.g. a bare "Out of memory allocating N bytes."
// quoted alone; XLA prints those messages as statuses ("RESOURCE_EXHAUSTED:
// ..."), which MayContain always passes.
func MayContain(text string) bool {
	// Two plain loops: calling the confirmations through a shared helper
	// taking a func value measured ~15% slower.
	for off := 0; ; {
		j := strings.IndexByte(text[off:], 'R')
		if j < 0 {
			break
		}
		if confirmR(text, off+j) {
			return true
		}
		off += j + 1
	}
	for off := 0; ; {
		j := strings.IndexByte(text[off:], 'B')
		if j < 0 {
			return false
		}
		if confirmB(text, off+j) {
			return true
		}
		off += j + 1
	}
}

// confirmR checks the phrases that start (or, for ERROR and INTERNAL, contain)
// an 'R' at s[i].
func confirmR(s string, i int) bool {
	r := s[i:]
	if len(r) < 6 {
		return false
	}
	switch r[1] {
	case 'E': // RESOURCE_EXHAUSTED
		return strings.HasPrefix(r, "RESOURCE_EXHAUSTED")
	case 'e':
		if strings.HasPrefix(r, "Resource") { // Resource exhausted, ResourceExhausted
			w := skipSpace(r, 8)
			return hasAt(r, w, "exhausted") || w == 8 && hasAt(r, w, "Exhausted")
		}
		if strings.HasPrefix(r, "Requires") { // Aborting compilation early ... Requires 3.84T
			w := skipSpace(r, 8)
			return w > 8 && w < len(r) && r[w] >= '0' && r[w] <= '9'
		}
	case 'a': // Ran out of memory
		return strings.HasPrefix(r, "Ran") && words(r, 3, "out", "of", "memory")
	case 'u': // RuntimeError, RuntimeBufferAllocationFailure, RuntimeProgramAllocationFailure
		if strings.HasPrefix(r, "Runtime") {
			t := r[7:]
			return strings.HasPrefix(t, "Error") || strings.HasPrefix(t, "BufferAllocationFailure") ||
				strings.HasPrefix(t, "ProgramAllocationFailure")
		}
	case 'R': // CUDA_ERROR_OUT_OF_MEMORY, HIP_ERROR_OutOfMemory
		return i > 0 && s[i-1] == 'E' &&
			(strings.HasPrefix(r, "RROR_OUT_OF_MEMORY") || strings.HasPrefix(r, "RROR_OutOfMemory"))
	case 'N': // INTERNAL: ... 'memref.alloca' op ... exceeds the legitimate user allocatable offset
		return i >= 4 && s[i-4:i] == "INTE" && strings.HasPrefix(r, "RNAL") &&
			strings.Contains(r[:min(len(r), 256)], "memref.alloca")
	}
	return false
}

// confirmB checks a 'B' at s[i]: the end of a size that follows an allocation
// verb, or the middle of a TPU memory id ("_HBM0").
func confirmB(s string, i int) bool {
	if i == 0 {
		return strings.HasPrefix(s, "BufferAssignment OOM")
	}
	j := i
	switch p := s[i-1]; {
	case p == 'i': // KiB MiB GiB TiB PiB EiB
		if i < 3 || strings.IndexByte("KMGTPE", s[i-2]) < 0 {
			return false
		}
		j -= 2
	case p >= '0' && p <= '9': // 512B, (33554432B)
	case p == 'H': // 0x0x1_HBM0
		return i >= 2 && s[i-2] == '_' && hasAt(s, i+1, "M")
	case isSpace(p): // the GPU dump under a bare status message
		return hasAt(s, i+1, "ufferAssignment OOM")
	default: // MB, GB, words that merely contain a B
		return false
	}
	if s[j-1] < '0' || s[j-1] > '9' {
		return false
	}
	for j > 0 && (s[j-1] >= '0' && s[j-1] <= '9' || s[j-1] == '.' || s[j-1] == ',') {
		j--
	}
	before := s[max(0, j-256):j] // bounded: MayContain stays linear in len(s)
	// A wrapped line may continue with a re-logged header: skip it.
	// IndexByte (vectorised) first: nearly every text is one line, and the
	// backward LastIndexByte is a byte-by-byte loop.
	if k := lastNewline(before); k >= 0 && stripHeaders(before[k+1:]) == "" {
		before = before[:k+1]
	}
	if t := trimSpaceRight(before); len(t) < len(before) { // the size must follow a space
		before = t
	} else {
		return false
	}
	return strings.HasSuffix(before, "allocate") || strings.HasSuffix(before, "request for") ||
		strings.HasSuffix(before, "memory of")
}

// words reports whether s[i:] continues with the given words, each preceded by
// a run of whitespace.
func words(s string, i int, ws ...string) bool {
	for _, w := range ws {
		j := skipSpace(s, i)
		if j == i || !hasAt(s, j, w) {
			return false
		}
		i = j + len(w)
	}
	return true
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func trimSpaceRight(s string) string {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// lastNewline is strings.LastIndexByte(s, '\n') behind a vectorised IndexByte.
func lastNewline(s string) int {
	if strings.IndexByte(s, '\n') < 0 {
		return -1
	}
	return strings.LastIndexByte(s, '\n')
}
