// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// The state file (--state): a job's latest failures, for the repeat rule of its next attempt.
const (
	stateVersion = 1
	stateDepth   = 8 // failures kept, as the processor's job history keeps
	// stateTTL: an older failure is not an earlier attempt (a Job name reused later names another job).
	stateTTL = assembly.DefaultHistoryTTL
)

// The environment variables a job's identity is read from, in this order after --job.
const (
	envJob       = "XLAOOM_JOB"
	envSlurmJob  = "SLURM_JOB_ID"
	envSlurmTask = "SLURM_ARRAY_TASK_ID"
	envK8sJob    = "K8S_JOB_NAME"         // the Downward API's metadata.labels['batch.kubernetes.io/job-name']
	envK8sIndex  = "JOB_COMPLETION_INDEX" // set by Kubernetes in an Indexed Job's pods
)

// jobIdentity names the job whose attempts share a state, and where the name came from ("" when none).
func jobIdentity(flagJob string, env []string) (name, source string) {
	get := func(k string) string { _, v := lookupEnv(env, k); return strings.TrimSpace(v) }
	switch {
	case strings.TrimSpace(flagJob) != "":
		return strings.TrimSpace(flagJob), "--job"
	case get(envJob) != "":
		return get(envJob), envJob
	case get(envSlurmJob) != "":
		name, source = "slurm-"+get(envSlurmJob), envSlurmJob
		if t := get(envSlurmTask); t != "" {
			name, source = name+"_"+t, source+"+"+envSlurmTask
		}
		return name, source
	case get(envK8sJob) != "":
		name, source = "k8s-"+get(envK8sJob), envK8sJob
		if i := get(envK8sIndex); i != "" {
			name, source = name+"-"+i, source+"+"+envK8sIndex
		}
		return name, source
	}
	return "", ""
}

// stateFile is the file's JSON.
type stateFile struct {
	Version  int           `json:"version"`
	Job      string        `json:"job"`
	Failures []pastFailure `json:"failures"` // oldest first
}

// pastFailure is one failed attempt's OOM: what the repeat rule compares, and what a reader wants to see.
type pastFailure struct {
	At             time.Time `json:"at"` // when the wrapper decided it, by this host's clock
	Host           string    `json:"host,omitempty"`
	Code           string    `json:"code"`
	Program        string    `json:"program,omitempty"`
	RequestedBytes *int64    `json:"requested_bytes,omitempty"` // absent: unknown
	Verdict        string    `json:"verdict"`
	Rule           string    `json:"rule,omitempty"`
	Missing        string    `json:"missing,omitempty"` // for unknown, the fact Rule lacked
}

// past is the failure as the repeat rule reads one of another attempt: the wrapper has told attempts apart
// by its own clock (jobState.earlier), since log times are read without a year.
func (p pastFailure) past() assembly.Past {
	q := assembly.Past{Code: p.Code, Program: p.Program, At: p.At, Stream: math.MaxUint64, Attempt: true}
	if p.RequestedBytes != nil {
		q.Requested = oom.Size{Bytes: *p.RequestedBytes, Known: true}
	}
	return q
}

// jobState is one job's state file.
type jobState struct {
	job  string
	path string
}

func newJobState(dir, job string) *jobState {
	return &jobState{job: job, path: filepath.Join(dir, stateFileName(job))}
}

const fileNameBytes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."

// stateFileName is the job's name, made safe for a file name, and a hash of it that keeps names apart.
func stateFileName(job string) string {
	safe := []byte(job)
	for i, c := range safe {
		if !strings.ContainsRune(fileNameBytes, rune(c)) {
			safe[i] = '_'
		}
	}
	sum := sha256.Sum256([]byte(job))
	return "xlaoom-run-" + string(safe[:min(len(safe), 100)]) + "-" + hex.EncodeToString(sum[:4]) + ".json"
}

// read returns the failures kept; none and no error when there is no file yet.
func (s *jobState) read() ([]pastFailure, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f stateFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("not a state file: %w", err)
	}
	switch {
	case f.Version != stateVersion:
		return nil, fmt.Errorf("version %d, not %d", f.Version, stateVersion)
	case f.Job != s.job:
		return nil, fmt.Errorf("the state of job %q, not %q", f.Job, s.job)
	}
	return f.Failures, nil
}

// earlier are the failures of attempts before the one that started at started: those the wrapper decided
// before it, within stateTTL. A later one is another host's of the same attempt.
func earlier(failures []pastFailure, started time.Time) []assembly.Past {
	var out []assembly.Past
	for _, p := range failures {
		if p.At.Before(started) && started.Sub(p.At) <= stateTTL {
			out = append(out, p.past())
		}
	}
	return out
}

// add appends p to the file, keeping the latest stateDepth failures within stateTTL. It reads the file again
// first (another host of the job may have written it since) and replaces it at once: a reader sees the old
// file or the new one, never a part.
func (s *jobState) add(p pastFailure) error {
	kept, err := s.read()
	if err != nil {
		kept = nil // reported when read at the start; replaced by a good one now
	}
	fresh := kept[:0]
	for _, q := range kept {
		if p.At.Sub(q.At) <= stateTTL {
			fresh = append(fresh, q)
		}
	}
	fresh = append(fresh, p)
	fresh = fresh[max(0, len(fresh)-stateDepth):]
	b, err := json.MarshalIndent(stateFile{Version: stateVersion, Job: s.job, Failures: fresh}, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.path, append(b, '\n'))
}

// writeAtomic writes b to a temporary file beside path and renames it to path.
func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".xlaoom-run-*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync() // the rename must not name an empty file after a crash
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}
