// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// repeatingJob is a real capture's whole stderr (oom/testdata/real, JAX on an H100, default logging): a jit
// whose temporaries need 69.85 GiB, more than the pool, which default logging does not print; it fails the
// same way on every run. Alone its log cannot tell: unknown, rule repeat lacks earlier_attempt.
var repeatingJob = capture("real", "jit_temps_defaultlog.stderr.txt")

const (
	firstAttempt = "rule repeat lacks earlier_attempt"
	repeated     = "futile (rule: repeat"
)

// clearIdentity unsets every variable a job's identity is read from.
func clearIdentity(t *testing.T) {
	for _, k := range []string{envJob, envSlurmJob, envSlurmTask, envK8sJob, envK8sIndex} {
		t.Setenv(k, "")
	}
}

// setEnv sets "NAME=value" pairs.
func setEnv(t *testing.T, kv []string) {
	for _, e := range kv {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
}

// stateFiles lists dir's files.
func stateFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func readState(t *testing.T, path string) stateFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f stateFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// Two attempts of one job with one state: the first keeps the job's status, the second is a repeat.
func TestStateRepeatAcrossRuns(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"--job", nil, []string{"--job=train"}},
		{"XLAOOM_JOB", []string{"XLAOOM_JOB=train"}, nil},
		{"Slurm job, requeued", []string{"SLURM_JOB_ID=4242"}, nil},
		{"Slurm array task", []string{"SLURM_JOB_ID=4242", "SLURM_ARRAY_TASK_ID=3"}, nil},
		{"Kubernetes Job", []string{"K8S_JOB_NAME=train"}, nil},
		{"JobSet's Indexed Job, worker 2", []string{"K8S_JOB_NAME=train-workers-0", "JOB_COMPLETION_INDEX=2"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			clearIdentity(t)
			setEnv(t, c.env)
			dir := t.TempDir()
			termination := filepath.Join(t.TempDir(), "termination-log")
			args := append([]string{"--state=" + dir, "--termination-log=" + termination}, c.args...)
			w := runWrapped(t, repeatingJob, failWithCapture, args...)
			if w.status != 1 || !strings.Contains(w.lastLine(), firstAttempt) {
				t.Fatalf("first attempt: status %d, want the job's 1 and %q: %s", w.status, firstAttempt, w.lastLine())
			}
			if b, _ := os.ReadFile(termination); string(b) != w.lastLine()+"\n" {
				t.Errorf("first attempt: termination log %q, want the decision %q", b, w.lastLine())
			}
			w = runWrapped(t, repeatingJob, failWithCapture, args...)
			if w.status != DefaultFutileExit || !strings.Contains(w.lastLine(), repeated) {
				t.Fatalf("second attempt: status %d, want %d and %q: %s", w.status, DefaultFutileExit, repeated, w.lastLine())
			}
			if b, _ := os.ReadFile(termination); string(b) != w.lastLine()+"\n" {
				t.Errorf("termination log %q, want the decision %q", b, w.lastLine())
			}
			// One file, written whole: no temporary file is left.
			files := stateFiles(t, dir)
			if len(files) != 1 || !strings.HasPrefix(files[0], "xlaoom-run-") || !strings.HasSuffix(files[0], ".json") {
				t.Fatalf("state dir holds %q, want one xlaoom-run-*.json", files)
			}
			f := readState(t, filepath.Join(dir, files[0]))
			if f.Version != stateVersion || len(f.Failures) != 2 || f.Failures[1].Rule != "repeat" || f.Failures[0].Code != "E0007" {
				t.Errorf("state %+v, want version %d and both failures (E0007, the second by rule repeat)", f, stateVersion)
			}
		})
	}
}

// Another job's failure, or another worker's, is no earlier attempt.
func TestStateOtherJobNoRepeat(t *testing.T) {
	for _, c := range []struct {
		name          string
		first, second []string // the environments of the two runs
		args1, args2  []string
	}{
		{"--job", nil, nil, []string{"--job=a"}, []string{"--job=b"}},
		{"Slurm array tasks", []string{"SLURM_JOB_ID=7", "SLURM_ARRAY_TASK_ID=1"}, []string{"SLURM_JOB_ID=7", "SLURM_ARRAY_TASK_ID=2"}, nil, nil},
		{"Slurm jobs", []string{"SLURM_JOB_ID=7"}, []string{"SLURM_JOB_ID=8"}, nil, nil},
		{"Indexed Job workers", []string{"K8S_JOB_NAME=train", "JOB_COMPLETION_INDEX=0"}, []string{"K8S_JOB_NAME=train", "JOB_COMPLETION_INDEX=1"}, nil, nil},
		// A Slurm job id is not a Kubernetes Job's name, even when the two read alike.
		{"sources apart", []string{"SLURM_JOB_ID=train"}, []string{"K8S_JOB_NAME=train"}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			clearIdentity(t)
			setEnv(t, c.first)
			runWrapped(t, repeatingJob, failWithCapture, append([]string{"--state=" + dir}, c.args1...)...)
			clearIdentity(t)
			setEnv(t, c.second)
			w := runWrapped(t, repeatingJob, failWithCapture, append([]string{"--state=" + dir}, c.args2...)...)
			if w.status != 1 || !strings.Contains(w.lastLine(), firstAttempt) {
				t.Errorf("status %d, want the job's 1 and %q: %s", w.status, firstAttempt, w.lastLine())
			}
			if n := len(stateFiles(t, dir)); n != 2 {
				t.Errorf("%d state files, want one per job", n)
			}
		})
	}
}

// --state with nothing that names the job: no repeat, and the decision says what it lacked.
func TestStateWithoutIdentity(t *testing.T) {
	clearIdentity(t)
	dir := t.TempDir()
	for run := 1; run <= 2; run++ {
		w := runWrapped(t, repeatingJob, failWithCapture, "--state="+dir)
		if w.status != 1 || !strings.Contains(w.lastLine(), "rule repeat lacks job_identity") {
			t.Errorf("run %d: status %d, want the job's 1 and the repeat rule lacking job_identity: %s", run, w.status, w.lastLine())
		}
	}
	if files := stateFiles(t, dir); len(files) != 0 {
		t.Errorf("state files %q without a job identity", files)
	}
	// Without --state only this wrapper's own reruns are attempts: the rule lacks an earlier one.
	w := runWrapped(t, repeatingJob, failWithCapture)
	if w.status != 1 || !strings.Contains(w.lastLine(), firstAttempt) {
		t.Errorf("no --state: status %d: %s", w.status, w.lastLine())
	}
}

// A state that cannot be read is said and ignored, and replaced by a good one; one that cannot be written never
// changes the job's status.
func TestStateUnreadableIgnored(t *testing.T) {
	clearIdentity(t)
	path := filepath.Join(t.TempDir(), stateFileName("train"))
	for _, c := range []struct{ name, content string }{
		{"corrupt", `{"version":1,"job":"tr`},
		{"empty", ``},
		{"newer version", `{"version":2,"job":"train","failures":[]}`},
		{"another job's", `{"version":1,"job":"other","failures":[{"at":"2026-11-29T07:00:00Z","code":"E0007","requested_bytes":18874368,"verdict":"unknown"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			w := runWrapped(t, repeatingJob, failWithCapture, "--state="+filepath.Dir(path), "--job=train")
			if w.status != 1 || !strings.Contains(w.stderr, "xlaoom run: the state "+path+" is ignored: ") ||
				!strings.Contains(w.lastLine(), firstAttempt) {
				t.Fatalf("status %d, want 1, the state said ignored and a first attempt's decision:\n%s", w.status, w.stderr)
			}
			if f := readState(t, path); f.Version != stateVersion || f.Job != "train" || len(f.Failures) != 1 {
				t.Errorf("the state was not replaced by a good one: %+v", f)
			}
			w = runWrapped(t, repeatingJob, failWithCapture, "--state="+filepath.Dir(path), "--job=train")
			if w.status != DefaultFutileExit {
				t.Errorf("after it was replaced: status %d, want %d: %s", w.status, DefaultFutileExit, w.lastLine())
			}
		})
	}
	t.Run("cannot be written", func(t *testing.T) {
		notADir := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(notADir, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		w := runWrapped(t, repeatingJob, failWithCapture, "--state="+notADir, "--job=train")
		if w.status != 1 || !strings.Contains(w.stderr, "xlaoom run: cannot write the state ") || !strings.Contains(w.lastLine(), firstAttempt) {
			t.Errorf("status %d, want 1 and the write failure said:\n%s", w.status, w.stderr)
		}
	})
}

// --dry-run: one run, the decision as it would be, the state kept, the job's own status.
func TestDryRun(t *testing.T) {
	clearIdentity(t)
	dir := t.TempDir()
	termination := filepath.Join(t.TempDir(), "termination-log")
	runWrapped(t, repeatingJob, failWithCapture, "--state="+dir, "--job=train")
	w := runWrapped(t, repeatingJob, failWithCapture, "--dry-run", "--state="+dir, "--job=train", "--termination-log="+termination)
	want := "xlaoom run: dry run: the job exited 1: the XLA failure E0007 is " + repeated
	if w.status != 1 || len(w.runs) != 1 || !strings.HasPrefix(w.lastLine(), want) || !strings.HasSuffix(w.lastLine(), ": exit 78") {
		t.Errorf("status %d after %d runs, want the job's 1 after 1 and %q…: exit 78: %s", w.status, len(w.runs), want, w.lastLine())
	}
	if b, _ := os.ReadFile(termination); string(b) != w.lastLine()+"\n" {
		t.Errorf("termination log %q, want the dry run's decision", b)
	}
	if f := readState(t, filepath.Join(dir, stateFileName("train"))); len(f.Failures) != 2 {
		t.Errorf("the dry run did not keep its failure: %d in the state, want 2", len(f.Failures))
	}

	// A failure a rerun may help (the real job platform_near_full_oom: another process held 70 GiB): the rerun is
	// said, not run.
	w = runWrapped(t, capture("jobs", "platform_near_full_oom.log"), failWithCapture, "--dry-run", "--retries=2")
	if w.status != 1 || len(w.runs) != 1 || !strings.Contains(w.lastLine(), "dry run: ") || !strings.Contains(w.lastLine(), "rerun 1 of 2") {
		t.Errorf("may help: status %d after %d runs, want 1 after 1 and the rerun said: %s", w.status, len(w.runs), w.lastLine())
	}
	// A futile failure on its own (a TPU compile-time E1000, jax's traceback): the job's status still.
	w = runWrapped(t, capture("messages", "tpu-compile-hbm-used_jax_traceback.txt"), failWithCapture, "--dry-run")
	if w.status != 1 || !strings.Contains(w.lastLine(), "futile (rule: compile time") {
		t.Errorf("futile: status %d, want 1: %s", w.status, w.lastLine())
	}
}

// The state keeps the latest stateDepth failures within stateTTL; an attempt reads only those decided before
// it started (a later one is another host's of the same attempt).
func TestStateBounds(t *testing.T) {
	s := newJobState(t.TempDir(), "train")
	t0 := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	mb := int64(18874368)
	for i := range 10 {
		if err := s.add(pastFailure{At: t0.Add(time.Duration(i) * time.Minute), Code: "E0007", RequestedBytes: &mb}); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := s.read()
	if err != nil || len(kept) != stateDepth || !kept[0].At.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("kept %d (%v), want the latest %d from minute 2", len(kept), err, stateDepth)
	}
	if err := s.add(pastFailure{At: t0.Add(stateTTL + 5*time.Minute), Code: "E0007"}); err != nil {
		t.Fatal(err)
	}
	// Minutes 5 to 9 are within stateTTL of the new one.
	if kept, _ = s.read(); len(kept) != 6 {
		t.Errorf("after %v, %d kept; want the 5 within it and the new one", stateTTL, len(kept))
	}
	for _, c := range []struct {
		name    string
		started time.Time
		want    int
	}{
		{"after the new one", t0.Add(stateTTL + 8*time.Minute), 3}, // minutes 8 and 9, and the new one
		{"before the new one", t0.Add(10 * time.Minute), 5},        // the new one is another host's of this attempt
		{"before all", t0, 0},
		{"too long after", t0.Add(3 * stateTTL), 0},
	} {
		if got := earlier(kept, c.started); len(got) != c.want {
			t.Errorf("%s: %d earlier, want %d", c.name, len(got), c.want)
		}
	}
}

// The reruns of one wrapper are later attempts, with or without --state.
func TestRerunIsLaterAttempt(t *testing.T) {
	log, err := os.ReadFile(repeatingJob)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	o, _, _ := parse([]string{"true"}, &stderr)
	w := &wrapper{o: o, stderr: &stderr, log: newLogCopy(o.keepBytes)}
	var retries int
	var smaller bool
	for attempt, want := range []string{oom.RetryUnknown, oom.RetryFutile} {
		w.log.reset()
		w.log.append(log)
		exit, _ := w.decide(1, attempt+1, &retries, &smaller, nil)
		if wantExit := map[string]int{oom.RetryUnknown: 1, oom.RetryFutile: DefaultFutileExit}[want]; exit != wantExit {
			t.Errorf("run %d: exit %d, want %d (%s):\n%s", attempt+1, exit, wantExit, want, stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), repeated) {
		t.Errorf("the second run is no repeat:\n%s", stderr.String())
	}
}

func TestJobIdentity(t *testing.T) {
	for _, c := range []struct {
		flag       string
		env        []string
		name, from string
	}{
		{"", nil, "", ""},
		{"", []string{"JOB_COMPLETION_INDEX=3"}, "", ""}, // an index names no job
		{" train ", []string{"XLAOOM_JOB=other", "SLURM_JOB_ID=1"}, "train", "--job"},
		{"", []string{"XLAOOM_JOB=x", "SLURM_JOB_ID=1", "K8S_JOB_NAME=k"}, "x", "XLAOOM_JOB"},
		{"", []string{"SLURM_JOB_ID=1", "SLURM_ARRAY_TASK_ID=5", "K8S_JOB_NAME=k"}, "slurm-1_5", "SLURM_JOB_ID+SLURM_ARRAY_TASK_ID"},
		{"", []string{"K8S_JOB_NAME=train-workers-0", "JOB_COMPLETION_INDEX=3"}, "k8s-train-workers-0-3", "K8S_JOB_NAME+JOB_COMPLETION_INDEX"},
		{"", []string{"K8S_JOB_NAME=train", "SLURM_JOB_ID="}, "k8s-train", "K8S_JOB_NAME"},
	} {
		name, from := jobIdentity(c.flag, c.env)
		if name != c.name || from != c.from {
			t.Errorf("%q %q: %q from %q, want %q from %q", c.flag, c.env, name, from, c.name, c.from)
		}
	}
	// Names that a file name cannot hold stay apart.
	if a, b := stateFileName("a/b"), stateFileName("a_b"); a == b || strings.ContainsAny(a, "/\\") {
		t.Errorf("state file names %q and %q", a, b)
	}
}
