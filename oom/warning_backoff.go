// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// Start-up back-off: StreamExecutor's CUDA driver wrapper
// (xla/stream_executor/cuda/cuda_driver.cc; older
// tensorflow/stream_executor/cuda/cuda_driver.cc) logs a refused device
// allocation at INFO level on purpose: the BFC allocator retries with a
// smaller size, typically while it reserves its pool on a GPU another process
// holds. The same line at ERROR level (older releases) is the OOM family
// gpu-driver-alloc. The level lives in the log header, which flattening
// strips, so the raw lines are read here.
//
// It is not a family entry: gpu-driver-alloc matches the same text, and a
// warning entry is read from flattened text, which has lost the level.
const familyStartupBackoff = "gpu-startup-backoff"

var backoffPattern = compilePattern(familyStartupBackoff, "bytes) from device: ",
	`[Ff]ailed to allocate `+sizeGroup("requested")+` \((?P<requested_exact>\d+) bytes\) from device: (?:RESOURCE_EXHAUSTED: :? ?)?`+
		`(?:CUDA_ERROR_OUT_OF_MEMORY|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory)`, 0)

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
		if !strings.Contains(line, "bytes) from device: ") || lineLevel(line) != 'I' {
			continue
		}
		body := stripHeaders(line)
		backoffPattern.each(body, func(m match) {
			if at >= 0 {
				return
			}
			w = Warning{Kind: WarningStartupBackoff, Family: familyStartupBackoff, Phase: PhaseRuntime, Backend: BackendGPU,
				Requested: exact(m.group("requested"), m.group("requested_exact"))}
			at = max(0, strings.Index(flat, body[m.start():min(len(body), m.start()+64)]))
		})
	}
	return w, at, at >= 0
}

// lineLevel returns the severity letter (I, W, E, F) of the innermost log
// header of line that states one, or 0: "I0115 10:00:00.000 123
// cuda_driver.cc:802] ...", "2019-01-15 10:00:00.123456: I
// tensorflow/stream_executor/cuda/cuda_driver.cc:806] ...". It reads the
// headers the way flatten does (levels.go).
func lineLevel(line string) byte {
	_, level, _ := stripHeadersLevel(line)
	return level
}
