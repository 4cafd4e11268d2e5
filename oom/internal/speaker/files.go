// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// Foreign programs' own source files, by the base name a log header prints; XLA's and TSL's are never listed
// (TestXLAHeaderFilesAreNotForeign). From each project's repository, the files that allocate or report device
// memory; generic names (init.cc, alloc.h) left out. A trailing "*" is a prefix only the program's files carry.
var sourceFiles = []struct {
	program string
	files   []string
}{
	{"onnxruntime", []string{
		"onnxruntime_*", "bfc_arena.cc", "cuda_call.cc", "cuda_execution_provider.cc", "sequential_executor.cc",
		"inference_session.cc", "allocation_planner.cc", "execution_frame.cc",
		"provider_bridge_ort.cc",
	}},
	{"pytorch", []string{
		"CUDACachingAllocator.cpp", "CUDACachingAllocator.h", "CUDAMallocAsyncAllocator.cpp", "CUDAAllocatorConfig.cpp",
		"CUDAAllocatorConfig.h", "CUDAFunctions.cpp", "CUDAException.cpp", "XPUCachingAllocator.cpp", "CPUAllocator.cpp",
		"alloc_cpu.cpp", "ProcessGroupNCCL.cpp", "ProcessGroupNCCL.hpp", "NCCLUtils.cpp", "NCCLUtils.hpp", "TCPStore.cpp",
		"ProcessGroupGloo.cpp", "CUDAGraph.cpp", "CublasHandlePool.cpp",
	}},
	{"tensorrt", []string{
		"defaultAllocator.cpp", "resizingAllocator.cpp", "virtualMemoryBuffer.cpp", "executionContext.cpp",
		"globWriter.cpp", "checkMacros.cpp", "safeRuntime.cpp", "tllmRuntime.cpp",
	}},
	{"nccl", []string{"cudawrap.cc", "ibvwrap.cc", "nvmlwrap.cc", "net_ib.cc", "net_socket.cc", "nvls.cc"}},
	{"rapids", []string{
		"pool_memory_resource.hpp", "pool_memory_resource_impl.cpp", "cuda_memory_resource.hpp",
		"cuda_async_memory_resource.hpp", "arena_memory_resource.hpp", "managed_memory_resource.hpp",
		"binning_memory_resource.hpp", "stream_ordered_memory_resource.hpp", "limiting_resource_adaptor.hpp",
		"limiting_resource_adaptor_impl.cpp",
	}},
	{"mxnet", []string{
		"pooled_storage_manager.h", "gpu_device_storage.h", "cpu_device_storage.h", "threaded_engine.cc",
		"threaded_engine_perdevice.cc", "naive_engine.cc",
	}},
	{"paddlepaddle", []string{
		"auto_growth_best_fit_allocator.cc", "naive_best_fit_allocator.cc", "retry_allocator.cc",
		"allocator_facade.cc", "stream_safe_cuda_allocator.cc", "buddy_allocator.cc", "system_allocator.cc",
	}},
	{"llama.cpp", []string{"ggml-*", "ggml.c", "llama.cpp", "llama-*"}},
}

var fileOwners, filePrefixes = buildFiles()

type filePrefix struct{ prefix, program string }

func buildFiles() (map[string]string, []filePrefix) {
	names := map[string]string{}
	var prefixes []filePrefix
	for _, p := range sourceFiles {
		for _, f := range p.files {
			if strings.HasSuffix(f, "*") {
				prefixes = append(prefixes, filePrefix{f[:len(f)-1], p.program})
				continue
			}
			if _, dup := names[f]; dup {
				panic("speaker: source file " + f + " is listed twice")
			}
			names[f] = p.program
		}
	}
	return names, prefixes
}

// ownerOfSource finds the program of a native header's source file: by a directory a row names, else its name.
func ownerOfSource(file string) (string, Owner) {
	if p, o := ownerOfPath(file); o != Unknown {
		return p, o
	}
	return ownerOfFile(file)
}

// ownerOfFile finds the program whose own source file a path's base name is; native sources only
// (a user's script may be named "llama-train.py").
func ownerOfFile(path string) (string, Owner) {
	base := path[strings.LastIndexByte(path, '/')+1:]
	if !nativeSource(base) {
		return "", Unknown
	}
	if p, ok := fileOwners[base]; ok {
		return p, Foreign
	}
	for _, fp := range filePrefixes {
		if strings.HasPrefix(base, fp.prefix) && len(base) > len(fp.prefix) {
			return fp.program, Foreign
		}
	}
	return "", Unknown
}

// nativeSource reports whether a file is a C, C++, CUDA or Objective-C one.
func nativeSource(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	return dot >= 0 && slices.Contains(nativeExtensions, name[dot+1:])
}

var nativeExtensions = []string{"c", "cc", "cpp", "cxx", "cu", "cuh", "h", "hpp", "m", "mm"}

// fileMark finds TensorRT's mark of its source file in a statement's head ("[defaultAllocator.cpp::allocate::20]").
func fileMark(statement string) (string, string, Owner) {
	head := statement[:min(len(statement), tagSpan)]
	for from := 0; ; {
		k := strings.Index(head[from:], "::")
		if k < 0 {
			return "", "", Unknown
		}
		end := from + k
		from = end + 2
		start := end
		for start > 0 && (logheader.IsWordByte(head[start-1]) || head[start-1] == '.' || head[start-1] == '-') {
			start--
		}
		if start == end || start == 0 || head[start-1] != '[' {
			continue
		}
		if p, o := ownerOfFile(head[start:end]); o != Unknown {
			return head[start:end], p, o
		}
	}
}
