// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWhoSaidIt: a file that holds only another program's out-of-memory
// error finds nothing (exit 0), and a status JAX raised is a failure
// (exit 1) whatever allocator wording it carries (issue 32's two cases).
func TestWhoSaidIt(t *testing.T) {
	for _, c := range []struct {
		name, text string
		exit       int
	}{
		{"CuPy's OutOfMemoryError", "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 200,000,000,000 bytes (allocated so far: 0 bytes).\n", ExitNone},
		{"a raised cudaMallocAsync refusal with CUDA's figures", "jax.errors.JaxRuntimeError: INTERNAL: gpu_async_0 cuMemAllocAsync failed to allocate 4294967296 bytes: CUDA error: out of memory (CUDA_ERROR_OUT_OF_MEMORY)\n Reported by CUDA: Free memory/Total memory: 1048576/85899345920\n", ExitFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "job.log")
			if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			status := Main([]string{"explain", path}, nil, &stdout, &stderr)
			assert.Equal(t, c.exit, status, stdout.String())
			assert.Empty(t, stderr.String())
		})
	}
}
