package oom

import "strings"

// The grammar of memory-pressure warnings (see warning.go). Like the OOM
// grammar, patterns run on flattened text around a literal anchor. Sources:
//
//   - rematerialization: xla/hlo/transforms/simplifiers/hlo_rematerialization.cc
//     (LOG(WARNING) after the pass, when the peak is still above the limit);
//   - allocator_retry: xla/tsl/framework/bfc_allocator.cc (LOG(WARNING) when an
//     allocation without retry fails; older TSL/TF print no "from the ... end");
//   - memory_usage: xla/stream_executor/cuda/cuda_dnn.cc, after "Could not
//     create cudnn handle";
//   - autotune_fallback and startup_backoff: below.

// warningForm is one warning message format.
type warningForm struct {
	kind string
	pattern
	phase   string
	backend string
	read    func(w *Warning, m match) bool
}

var warningForms = []warningForm{
	{ // "Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally"
		kind: WarningRematerialization, phase: PhaseCompile,
		pattern: patUpTo("by rematerialization; only reduced to", len("Can't reduce memory use below  ( bytes) ")+2*24,
			`Can.?t reduce memory use below `+sz+` \((\d+) bytes\) by rematerialization; only reduced to `+sz+` \((\d+) bytes\)`),
		read: func(w *Warning, m match) bool {
			w.Capacity, w.Used = exact(m.g(1), m.g(2)), exact(m.g(3), m.g(4))
			return w.Capacity.Known && w.Used.Known
		},
	},
	{ // "Allocator (GPU_0_bfc) ran out of memory trying to allocate 32.00MiB from the lower end with freed_by_count=0. The caller indicates that this is not a failure, ..."
		kind: WarningAllocatorRetry, phase: PhaseRuntime,
		pattern: patUpTo(" with freed_by_count=", 200,
			`Allocator \(([^)\s]+)\) ran out of memory trying to allocate `+sz+
				`(?: \(rounded to (\d+)\))?(?: from the \w+ end)? with freed_by_count=\d+`),
		read: func(w *Warning, m match) bool {
			a := m.g(1)
			w.Backend, w.Device = allocatorBackend(a), allocatorDevice(a)
			w.Requested = exact(m.g(2), m.g(3))
			return true
		},
	},
	{ // "Memory usage: 5242880 bytes free, 85031714816 bytes total."
		kind: WarningMemoryUsage, phase: PhaseRuntime, backend: BackendGPU,
		pattern: pat("Memory usage: ", 0, `Memory usage: (\d+) bytes free, (\d+) bytes total`),
		read: func(w *Warning, m match) bool {
			w.Free, w.Capacity = size(m.g(1)), size(m.g(2))
			return w.Free.Known && w.Capacity.Known
		},
	},
}

// The GPU autotuners log a failure to pick an algorithm and go on with a
// default one (xla/service/gpu conv_algorithm_picker.cc and
// gemm_algorithm_picker.cc): "Failed to determine best cudnn convolution
// algorithm[ for:\n<hlo>\n\nOriginal error]: <status>" and "Failed to find
// best cuBLAS algorithm, GEMM performance might be suboptimal: <status>". It
// is a memory warning only when the status says memory ran out. With
// --xla_gpu_strict_conv_algorithm_picker the same text is the compile error
// (it then offers "To ignore this failure and try to use a fallback
// algorithm"): that form is not a warning.
var autotuneAnchors = []string{
	"Failed to determine best cudnn convolution algorithm",
	"Failed to find best cuBLAS algorithm",
}

// autotuneSpan bounds how far the status may follow the anchor: the
// convolution form prints the HLO instruction in between.
const autotuneSpan = 4096

func autotuneFallback(flat string) (Warning, int, bool) {
	for _, anchor := range autotuneAnchors {
		found, at := Warning{}, -1
		eachAnchor(flat, anchor, func(i int) {
			if at >= 0 {
				return
			}
			win := flat[i+len(anchor) : min(len(flat), i+len(anchor)+autotuneSpan)]
			if k := strings.Index(win[1:], anchor); k >= 0 {
				win = win[:k+1] // the next fallback is another message
			}
			if strings.Contains(win, "To ignore this failure and try to use a fallback algorithm") {
				return // strict mode: the compile fails
			}
			w := Warning{Kind: WarningAutotuneFallback, Phase: PhaseCompile, Backend: BackendGPU}
			if !readAutotuneStatus(&w, win) {
				return
			}
			found, at = w, i
		})
		if at >= 0 {
			return found, at, true
		}
	}
	return Warning{}, -1, false
}

// readAutotuneStatus reads the allocation failure of an autotuner status.
func readAutotuneStatus(w *Warning, win string) bool {
	if i := strings.Index(win, "Out of memory while trying to allocate "); i >= 0 {
		tok, _, _ := strings.Cut(win[i+len("Out of memory while trying to allocate "):], " ")
		w.Requested = size(strings.TrimSuffix(tok, "."))
		return true
	}
	// RedzoneAllocator: "Allocating 4294967296 bytes exceeds the memory limit of 2147483648 bytes."
	if i := strings.Index(win, "Allocating "); i >= 0 {
		n, rest := leadingDigits(win[i+len("Allocating "):])
		if limit, ok := strings.CutPrefix(rest, " bytes exceeds the memory limit of "); ok && n != "" {
			l, _ := leadingDigits(limit)
			w.Requested, w.Capacity = size(n), size(l)
			return true
		}
	}
	return strings.Contains(win, "CUDA_ERROR_OUT_OF_MEMORY") || strings.Contains(win, "HIP_ERROR_OutOfMemory")
}

// Start-up back-off: StreamExecutor's CUDA driver wrapper logged a failed
// device allocation at INFO level ("LOG(INFO) because this isn't always
// important to users (e.g. BFCAllocator implements a retry if the first
// allocation fails)", xla/stream_executor/cuda/cuda_driver.cc; older
// tensorflow/stream_executor/cuda/cuda_driver.cc), typically while a memory
// pool is reserved on a GPU another process holds. The same line at ERROR
// level (older releases) is the OOM family M1. The level lives in the log
// header, which flattening strips, so the raw lines are read here.
var backoffPattern = patUpTo("bytes) from device: ", len("failed to allocate  (")+2*20,
	`[Ff]ailed to allocate `+sz+` \((\d+) bytes\) from device: (?:RESOURCE_EXHAUSTED: :? ?)?`+
		`(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory)`)

func startupBackoff(text, flat string) (Warning, int, bool) {
	var w Warning
	at := -1
	for rest := text; rest != "" && at < 0; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if !strings.Contains(line, "bytes) from device: ") || headerLevel(line) != 'I' {
			continue
		}
		body := stripHeaders(line)
		backoffPattern.each(body, func(m match) {
			if at >= 0 {
				return
			}
			w = Warning{Kind: WarningStartupBackoff, Phase: PhaseRuntime, Backend: BackendGPU,
				Requested: exact(m.g(1), m.g(2))}
			at = max(0, strings.Index(flat, body[m.start():min(len(body), m.start()+64)]))
		})
	}
	return w, at, at >= 0
}

// headerLevel returns the severity letter (I, W, E, F) of the innermost
// glog or TSL header of line, or 0 when it has none: "I0115 10:00:00.000
// 123 cuda_driver.cc:802] ...", "2019-01-15 10:00:00.123456: I
// tensorflow/stream_executor/cuda/cuda_driver.cc:806] ...".
func headerLevel(line string) byte {
	var level byte
	for range 8 {
		l := strings.TrimLeft(line, " \t\r")
		n := headerLen(l)
		if n == 0 {
			break
		}
		h := l[:n]
		switch {
		case isLevel(h[0]) && glogHeader(h) == n:
			level = h[0]
		case h[0] >= '0' && h[0] <= '9':
			if i := strings.Index(h, ": "); i >= 0 && i+3 < len(h) && isLevel(h[i+2]) && h[i+3] == ' ' {
				level = h[i+2]
			}
		}
		line = l[n:]
	}
	return level
}
