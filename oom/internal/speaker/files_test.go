// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Native lines whose header shows a source file by its base name alone:
// a foreign program's own file is foreign, any other name stays unknown.
var fileCases = []struct {
	name, header, statement string
	want                    Speaker
}{
	{"ONNX Runtime's file, base name only (issue 37)", "E0101 12:00:00.000000 1234 onnxruntime_cxx_api.cc:99] ",
		"Failed to allocate memory for requested buffer of size 1073741824",
		Speaker{Form: Native, File: "onnxruntime_cxx_api.cc", Level: 'E', Program: "onnxruntime", Owner: Foreign}},
	{"ONNX Runtime's arena", "E0101 12:00:00.000000 1234 bfc_arena.cc:376] ",
		"Failed to allocate memory for requested buffer of size 4294967296",
		Speaker{Form: Native, File: "bfc_arena.cc", Level: 'E', Program: "onnxruntime", Owner: Foreign}},
	{"PyTorch's c10 header (testdata/ordinary.txt)", "[rank3]:[W603 17:44:12.3019 ProcessGroupNCCL.cpp:4115] ",
		"Guessing device ID based on global rank.",
		Speaker{Form: Native, File: "ProcessGroupNCCL.cpp", Program: "pytorch", Owner: Foreign}}, // "W603": c10 pads no month
	{"PyTorch's caching allocator", "W1120 12:00:00.000000 77 CUDACachingAllocator.cpp:1120] ", "out of memory",
		Speaker{Form: Native, File: "CUDACachingAllocator.cpp", Level: 'W', Program: "pytorch", Owner: Foreign}},
	{"llama.cpp's file prefix", "E0101 12:00:00.000000 1 ggml-cuda.cu:70] ", "CUDA error: out of memory",
		Speaker{Form: Native, File: "ggml-cuda.cu", Level: 'E', Program: "llama.cpp", Owner: Foreign}},
	{"a foreign file behind an application's tag", "",
		"[trainer] E0101 12:00:00.000000 1234 bfc_arena.cc:376] Failed to allocate memory for requested buffer of size 4294967296",
		Speaker{Form: Native, File: "bfc_arena.cc", Level: 'E', Program: "onnxruntime", Owner: Foreign}},
	{"an XLA file behind an application's tag stays bare", "",
		"[trainer] E0101 12:00:00.000000 1234 bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory", Speaker{}},
	{"TensorRT's mark through TensorRT-LLM's logger", "",
		"[TensorRT-LLM][ERROR] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime (out of memory)",
		Speaker{Form: Native, File: "defaultAllocator.cpp", Program: "tensorrt", Owner: Foreign}},
	{"TensorRT's mark under a serving program's header", "E0101 12:00:00.000000 1 logging.cc:43] ",
		"1: [virtualMemoryBuffer.cpp::resizePhysical::145] Error Code 2: OutOfMemory (no further information)",
		Speaker{Form: Native, File: "logging.cc", Level: 'E', Program: "tensorrt", Owner: Foreign}},

	// Unknown names stay unknown: XLA's own, libtpu's closed sources, a
	// prefix alone, a mark of a file no list has, a C++ name.
	{"XLA's allocator", "W1126 11:17:52.375118 2444 bfc_allocator.cc:501] ", "Allocator (GPU_0_bfc) ran out of memory",
		Speaker{Form: Native, File: "bfc_allocator.cc", Level: 'W'}},
	{"libtpu's closed source", "E0101 12:00:00.000000 1 tpu_compilation_cache_external.cc:112] ", "Ran out of memory in memory space hbm",
		Speaker{Form: Native, File: "tpu_compilation_cache_external.cc", Level: 'E'}},
	{"PjRt", "E0101 12:00:00.000000 1 pjrt_stream_executor_client.cc:3077] ", "Execution failed",
		Speaker{Form: Native, File: "pjrt_stream_executor_client.cc", Level: 'E'}},
	{"the prefix alone is no file", "E0101 12:00:00.000000 1 ggml-:70] ", "x", Speaker{Form: Native, File: "ggml-", Level: 'E'}},
	{"the user's Python script named after a program", "E0101 12:00:00.000000 1 llama-train.py:88] ",
		"step failed: jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB",
		Speaker{Form: Native, File: "llama-train.py", Level: 'E', Module: "jax.errors", Class: "JaxRuntimeError", Program: "jax", Owner: XLA}},
	{"a mark of an unknown file", "", "1: [allocator.cpp::allocate::20] out of memory", Speaker{}},
	{"a C++ name is no mark", "", "[xla::gpu::GpuExecutable::ExecuteThunks] failed", Speaker{}},
}

func TestOfFiles(t *testing.T) {
	for _, c := range fileCases {
		t.Run(c.name, func(t *testing.T) {
			if got := Of(c.header, c.statement); got != c.want {
				t.Errorf("Of(%q, %q)\n got %+v\nwant %+v", c.header, c.statement, got, c.want)
			}
		})
	}
}

// testdataForeignHeaders are the foreign programs' log headers that
// oom/testdata holds outside the foreign corpus, with where.
var testdataForeignHeaders = map[string]string{
	"ProcessGroupNCCL.cpp": "ordinary.txt: PyTorch's [rank3]:[W603 …] line",
}

// headerFile is the "file:line]" of a native log header.
var headerFile = regexp.MustCompile(`(?:^|[\s\[])([A-Za-z0-9_.+/-]+\.(?:cc|cpp|c|cu|cuh|h|hpp|py|pyx|m|mm)):\d+\] `)

// TestXLAHeaderFilesAreNotForeign: no source file that an XLA, TSL, jaxlib or
// PyTorch/XLA log header of oom/testdata names (every capture, job log,
// message and dump), nor any file of the coverage table of XLA's sources,
// is taken for a foreign program's.
func TestXLAHeaderFilesAreNotForeign(t *testing.T) {
	root := filepath.Join("..", "..", "testdata")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(path)) == "foreign" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range headerFile.FindAllStringSubmatch(string(data), -1) {
			seen[m[1]] = true
		}
		if filepath.Base(path) == "templates.tsv" {
			for line := range strings.Lines(string(data)) {
				if cols := strings.Split(line, "\t"); len(cols) > 3 && !strings.HasPrefix(line, "#") {
					seen[cols[3]] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for file := range seen {
		base := file[strings.LastIndexByte(file, '/')+1:]
		s := Of("E0101 12:00:00.000000 1 "+file+":1] ", "out of memory")
		if where, ok := testdataForeignHeaders[base]; ok {
			if s.Owner != Foreign {
				t.Errorf("%s (%s): %+v, want foreign", file, where, s)
			}
			continue
		}
		if s.Owner == Foreign {
			t.Errorf("%s, a file of XLA's stack, is taken for %s's", file, s.Program)
		}
	}
	t.Logf("%d source files", len(seen))
	if len(seen) < 100 {
		t.Errorf("%d source files seen: the walk missed the testdata", len(seen))
	}
}
