// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package jobcheck holds the per-job expectations of the job-level tests:
// whole job logs (oom/testdata/jobs, one NAME.log per job and its entry in
// jobs-manifest.json) are run through the agent's record grouping, the
// processor and the connector, and what came out for each job is checked
// against what the job did: whether it failed, one incident per failure, the
// size of the request that failed, and that no allocator attempt is counted as
// a failure.
//
// The package runs nothing: a test fills an Observed from what it ran (an
// end-to-end collector's exported files, or the components in process; RecordOf
// and Sums read the pdata of either) and Check compares it with the job's
// manifest entry and its log.
package jobcheck // import "github.com/xlaoom/xlaoomprocessor/internal/jobcheck"

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ManifestFile is the name of the manifest in a jobs directory.
const ManifestFile = "jobs-manifest.json"

// Job is one job log and what the job did (its manifest entry).
type Job struct {
	// Name is the job's key in the manifest; the tests use it as the job's
	// service.name. A holder's log is its own job, named NAME.holder.
	Name string
	// Log is the path of the job's whole log.
	Log string
	// Failed is whether the job died (a non-zero exit).
	Failed bool
	// ReturnCode is the job's exit status (-1 for a holder, which is not waited for).
	ReturnCode int
	// FailingRequest is the size in bytes of the request that failed, when
	// the manifest knows it (0 otherwise).
	FailingRequest int64
	// HeldElsewhere is whether memory of the job's GPU was held outside its
	// program while it ran (heldElsewhere).
	HeldElsewhere bool
	// Repeats is whether a restart of the same configuration fails the same
	// way (repeats_on_restart): its failure's verdict must be futile.
	Repeats bool
	// Holder is the executable the allocator's dump attributes the most
	// in-use bytes to (holder_program), "" where the dump names none; Site
	// the frame of the user's code that asked (site), for a job that failed.
	Holder string
	Site   Site
}

// Site is a code location as the manifest and code.* name it.
type Site struct {
	File     string `json:"file"`
	Line     int64  `json:"line"`
	Function string `json:"function"`
}

// manifest is jobs-manifest.json as scripts/gpu-capture/jobs.py writes it.
type manifest struct {
	Jobs map[string]struct {
		Log            string   `json:"log"`
		HolderLog      string   `json:"holder_log"`
		ReturnCode     *int     `json:"returncode"`
		Failed         *bool    `json:"failed"`
		FailingRequest *int64   `json:"failing_request_bytes"`
		HeldGiB        *float64 `json:"held_by_another_process_gib"`
		RunsBeside     string   `json:"runs_beside"`
		Repeats        bool     `json:"repeats_on_restart"`
		Holder         string   `json:"holder_program"`
		Site           *Site    `json:"site"`
		Description    string   `json:"description"`
	} `json:"jobs"`
}

// sameProcess is how the manifest describes a library that held GPU memory
// in the job's own process before JAX started.
var sameProcess = regexp.MustCompile(`in the same process before JAX`)

// heldElsewhere reads from a manifest entry whether memory was held outside
// the job's program: by another process (held_by_another_process_gib, a
// holder log), by another job on the same GPU (runs_beside), or by another
// library in the same process (its description says so).
func heldElsewhere(heldGiB *float64, holderLog, runsBeside, description string) bool {
	return heldGiB != nil || holderLog != "" || runsBeside != "" || sameProcess.MatchString(description)
}

// ReadJobs reads dir's manifest and returns its jobs sorted by name, each
// holder log as a job of its own that did not fail. Every log it names must
// exist, and every NAME.log in dir must be named by the manifest, so a log
// added without its entry (or the reverse) is an error, not a silent skip.
func ReadJobs(dir string) ([]Job, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	var jobs []Job
	named := map[string]bool{}
	for name, e := range m.Jobs {
		if e.Log == "" || e.Failed == nil || e.ReturnCode == nil {
			return nil, fmt.Errorf("%s: job %q needs log, failed and returncode", ManifestFile, name)
		}
		if *e.Failed != (*e.ReturnCode != 0) {
			return nil, fmt.Errorf("%s: job %q: failed=%v with returncode %d", ManifestFile, name, *e.Failed, *e.ReturnCode)
		}
		j := Job{Name: name, Log: filepath.Join(dir, e.Log), Failed: *e.Failed, ReturnCode: *e.ReturnCode,
			HeldElsewhere: heldElsewhere(e.HeldGiB, e.HolderLog, e.RunsBeside, e.Description), Repeats: e.Repeats, Holder: e.Holder}
		if e.Site != nil {
			j.Site = *e.Site
		}
		if j.Failed && j.Site.File == "" {
			return nil, fmt.Errorf("%s: job %q failed but has no site", ManifestFile, name)
		}
		if e.FailingRequest != nil {
			if !j.Failed {
				return nil, fmt.Errorf("%s: job %q did not fail but has failing_request_bytes", ManifestFile, name)
			}
			j.FailingRequest = *e.FailingRequest
		}
		jobs = append(jobs, j)
		named[e.Log] = true
		if e.HolderLog != "" {
			jobs = append(jobs, Job{Name: name + ".holder", Log: filepath.Join(dir, e.HolderLog), ReturnCode: -1})
			named[e.HolderLog] = true
		}
	}
	for _, j := range jobs {
		if _, err := os.Stat(j.Log); err != nil {
			return nil, fmt.Errorf("job %s: %w", j.Name, err)
		}
	}
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return nil, err
	}
	for _, l := range logs {
		if !named[filepath.Base(l)] {
			return nil, fmt.Errorf("%s is not in %s: add its entry", l, ManifestFile)
		}
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].Name < jobs[b].Name })
	return jobs, nil
}

// attemptPatterns match the allocator attempt lines of today's stack: a
// request the allocator itself recovers from (by backing off, retrying or
// running on) and logs at any level. Each captures the bytes asked for.
var attemptPatterns = []*regexp.Regexp{
	// StreamExecutor's device, host or collective allocation (BFC pool set-up
	// and growth back-off, the platform allocator's driver call).
	regexp.MustCompile(`\[\d+\] Failed to allocate (?:device|host|collective) memory of \S+ \((\d+) bytes\): RESOURCE_EXHAUSTED\b.*CUDA_ERROR_OUT_OF_MEMORY`),
	// The driver wrapper's own message.
	regexp.MustCompile(`failed to allocate \S+ \((\d+) bytes\) from device: .*CUDA_ERROR_OUT_OF_MEMORY`),
	// A host or device region the allocator could not add.
	regexp.MustCompile(`could not allocate [a-z ]+ of size: (\d+)`),
	// The cuda_async allocator's pool reservation or request.
	regexp.MustCompile(`gpu_async_\d+ cuMemAllocAsync failed to allocate (\d+) bytes`),
}

// Attempt is one allocator attempt line.
type Attempt struct {
	Line  int // 1-based line number in the text it was found in
	Bytes int64
}

// Attempts finds every allocator attempt line of text.
func Attempts(text string) []Attempt {
	var out []Attempt
	for i, line := range strings.Split(text, "\n") {
		for _, re := range attemptPatterns {
			if m := re.FindStringSubmatch(line); m != nil {
				n, err := strconv.ParseInt(m[1], 10, 64)
				if err != nil {
					continue
				}
				out = append(out, Attempt{Line: i + 1, Bytes: n})
				break
			}
		}
	}
	return out
}

// LinesIn is the number of non-blank lines of text. The agent's multiline
// grouping trims the blank lines that end a record, so when the records of a
// job hold as many non-blank lines as its log, the whole log has been read.
func LinesIn(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}
