// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package demo holds the sample logs of `make run` (logs/<host>/<service>.log),
// the collector configuration that reads them, and what they are expected to
// produce, shared by the sample test and the end-to-end tests.
package demo

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Record is one multi-line log record of a sample file.
type Record struct {
	Host string
	Job  string // the file name without .log: the demo's service.name
	File string // the file it was read from
	Text string
}

// ReadRecords splits the files matching root/*/*.log into records the way
// file_log's multiline setting does.
func ReadRecords(root string) ([]Record, error) {
	files, err := filepath.Glob(filepath.Join(root, "*", "*.log"))
	if err != nil {
		return nil, err
	}
	return ReadFiles(files)
}

// ReadFiles splits files (<dir>/<host>/<job>.log) into records the way
// file_log's multiline setting does, in the order of their names.
func ReadFiles(files []string) ([]Record, error) {
	files = slices.Clone(files)
	sort.Strings(files)
	var out []Record
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		host := filepath.Base(filepath.Dir(f))
		job := strings.TrimSuffix(filepath.Base(f), ".log")
		var cur []string
		flush := func() {
			if len(cur) > 0 {
				// file_log trims trailing whitespace (preserve_trailing_whitespaces: false).
				out = append(out, Record{Host: host, Job: job, File: f, Text: strings.TrimRight(strings.Join(cur, "\n"), " \t\r\n")})
			}
			cur = nil
		}
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if oom.StartsRecord(line) {
				flush()
			}
			cur = append(cur, line)
		}
		flush()
	}
	return out, nil
}

// Expected is what the sample logs hold: for each host, the XLA error code of
// every OOM record in file order. Everything else, the look-alikes included,
// must stay untagged.
var Expected = map[string][]string{
	"cpu-eval-0":   {"E0007"},                                     // CPU "Out of memory allocating", old "Resource exhausted:" spelling
	"gpu-train-0":  {"E0007", "E0007"},                            // BFC + BufferAssignment dump, then the Python exception
	"gpu-train-1":  {"E0007", "E0007"},                            // platform allocator, cuda_async cuMemAllocAsync
	"serve-0":      {"E1000", "E1001"},                            // vLLM-prefixed HBM breakdown, PyTorch/XLA vmem
	"tpu-train-w0": {"E1000", "E1000", "E0100", "E3000"},          // HBM + breakdown, early abort, device buffer, SparseCore
	"tpu-train-w1": {"E1000", "E1001", "E1000", "E1000", "E0101"}, // E1000: prefix, scoped vmem, TC/SC, allocation would exceed, program load
}

// ExpectedIncidents are the failures of each job (service.name, the name of
// its log files). Every failure is more than a minute (the default
// incident_window) from the job's previous one and its records lie within one
// minute, so the processor's xla.oom.incident.id and the connector's
// xla.oom.incidents agree on them; failures of different jobs are minutes
// apart too.
var ExpectedIncidents = map[string]int{
	"ckpt-eval":      1, // CPU, 06:51
	"llama13b-train": 8, // TPU: the 07:01 compile OOM is logged by both hosts, the rest by one each
	"vit22b-train":   2, // GPU: 07:02 (three records on two hosts), 07:05
	"llama70b-serve": 2, // vLLM on TPU: 07:23, 07:28
}

// ExpectedWarnings are the memory-pressure warnings of the samples (the
// xla.memory.warning kinds, in file order per host): a job that warns before
// it fails. They are not OOMs and appear in no Expected list.
var ExpectedWarnings = map[string][]string{
	"gpu-train-0": {"rematerialization", "allocator_retry"}, // compile-time remat shortfall, then BFC retries, then the OOM
}

// ExpectedHostKills are the host-memory kills of the samples (the source of
// each, per host): never XLA failures, in no Expected list.
var ExpectedHostKills = map[string][]string{
	"cpu-eval-0": {"ray"}, // a checkpoint conversion materialised on the host, killed by Ray's memory monitor
}

// LookAlikes are substrings of records that mention RESOURCE_EXHAUSTED or
// running out of memory but are not XLA OOM failures.
var LookAlikes = []string{
	"grpc: received message larger than max",     // gRPC RESOURCE_EXHAUSTED
	"Quota exceeded for quota metric",            // quota RESOURCE_EXHAUSTED
	"with freed_by_count=0",                      // BFC warning the caller tolerates: a memory warning, not an OOM
	"torch.OutOfMemoryError: CUDA out of memory", // PyTorch, not XLA
	"StatusCode.RESOURCE_EXHAUSTED details",      // gRPC in vLLM's API server
}

// ExpectedTotal is the number of OOM records in the samples.
func ExpectedTotal() int {
	n := 0
	for _, codes := range Expected {
		n += len(codes)
	}
	return n
}
