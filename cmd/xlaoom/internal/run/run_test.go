// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// The fake jobs are /bin/sh scripts that write a real capture of
// oom/testdata to their standard error and exit 1, as a Python job that
// died of an XLA OOM does. Each run appends a line to $RUNS, so that the
// tests count the runs and read the environment each run saw.

var testdata = filepath.Join("..", "..", "..", "..", "oom", "testdata")

func capture(parts ...string) string {
	return filepath.Join(append([]string{testdata}, parts...)...)
}

// wrapped is the outcome of one `xlaoom run`.
type wrapped struct {
	status         int
	stdout, stderr string
	runs           []string // one line per run of the job: what it wrote to $RUNS
}

// runWrapped runs `xlaoom run args... -- /bin/sh -c script` with CAPTURE
// set to the capture and RUNS to a fresh file, and checks that every line
// the wrapper wrote is one the xla_oom agent reading the same log does not
// take for an OOM.
func runWrapped(t *testing.T, captureFile, script string, args ...string) wrapped {
	t.Helper()
	runs := filepath.Join(t.TempDir(), "runs")
	t.Setenv("CAPTURE", captureFile)
	t.Setenv("RUNS", runs)
	var stdout, stderr bytes.Buffer
	args = append(append(append([]string{"--retry-delay=0"}, args...), "--", "/bin/sh", "-c"), script)
	w := wrapped{status: Main(args, nil, &stdout, &stderr), stdout: stdout.String(), stderr: stderr.String()}
	if b, err := os.ReadFile(runs); err == nil {
		w.runs = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	for _, line := range strings.Split(w.stderr, "\n") {
		if !strings.HasPrefix(line, "xlaoom run:") {
			continue
		}
		if oom.MayContain(line) {
			if f := oom.Default().Find(line, true); f.Found != oom.FoundNothing {
				t.Errorf("the agent would read the wrapper's own line as an OOM finding (%v): %s", f.Found, line)
			}
		}
	}
	return w
}

// failWithCapture is a job that writes the capture to stderr and exits 1.
const failWithCapture = `echo "run BATCH_SIZE=$BATCH_SIZE" >> "$RUNS"; cat "$CAPTURE" >&2; exit 1`

// lastLine is the wrapper's decision: its last line on stderr.
func (w wrapped) lastLine() string {
	lines := strings.Split(strings.TrimRight(w.stderr, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestFutileFailureExitsFutileStatus(t *testing.T) {
	for _, c := range []struct{ name, file string }{
		// A TPU compile-time overflow (E1000): XLA sized the program
		// against the chip before anything ran.
		{"tpu compile E1000", capture("messages", "tpu-compile-hbm-used_jax_traceback.txt")},
		// A 93.13 GiB device_put with the VMM allocator, whose budget is
		// 0.75 of an 80 GB GPU: larger than the pool.
		{"gpu request over the pool", capture("real", "vmm_device_put.stderr.txt")},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Reruns are allowed: a futile failure must not spend them.
			w := runWrapped(t, c.file, failWithCapture, "--retries=3")
			if w.status != DefaultFutileExit || len(w.runs) != 1 {
				t.Fatalf("status %d after %d runs, want %d after 1\n%s", w.status, len(w.runs), DefaultFutileExit, w.lastLine())
			}
			if !strings.Contains(w.lastLine(), "futile") {
				t.Errorf("the decision does not say futile: %s", w.lastLine())
			}
			// The job's output passes through unchanged, before the decision.
			want, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(w.stderr, string(want)) {
				t.Errorf("the job's stderr did not pass through unchanged")
			}
		})
	}
	t.Run("own status and termination log", func(t *testing.T) {
		termination := filepath.Join(t.TempDir(), "termination-log")
		w := runWrapped(t, capture("real", "vmm_device_put.stderr.txt"), failWithCapture, "--futile-exit=99", "--termination-log="+termination)
		if w.status != 99 {
			t.Errorf("status %d, want --futile-exit's 99", w.status)
		}
		if b, err := os.ReadFile(termination); err != nil || string(b) != w.lastLine()+"\n" {
			t.Errorf("termination log %q (%v), want the decision %q", b, err, w.lastLine())
		}
	})
}

// A job that failed while another process held the GPU: a rerun may help.
// Reruns are bounded by --retries; the last failure exits the retriable
// status.
func TestMayHelpFailureIsRetriedBounded(t *testing.T) {
	file := capture("jobs", "platform_near_full_oom.log")
	w := runWrapped(t, file, failWithCapture, "--retries=2")
	if w.status != DefaultMayHelpExit || len(w.runs) != 3 {
		t.Fatalf("status %d after %d runs, want %d after 3 (1 + 2 reruns)\n%s", w.status, len(w.runs), DefaultMayHelpExit, w.stderr)
	}
	if n := strings.Count(w.stderr, "xlaoom run:"); n != 3 {
		t.Errorf("%d lines of the wrapper, want one per run", n)
	}

	// Without reruns (a Kubernetes entrypoint), the retriable status at once.
	w = runWrapped(t, file, failWithCapture)
	if w.status != DefaultMayHelpExit || len(w.runs) != 1 {
		t.Errorf("status %d after %d runs, want %d after 1", w.status, len(w.runs), DefaultMayHelpExit)
	}

	// The holder has gone by the rerun: the job succeeds, and so does the wrapper.
	w = runWrapped(t, file, `echo run >> "$RUNS"; [ "$(wc -l < "$RUNS")" -ge 2 ] && exit 0; cat "$CAPTURE" >&2; exit 1`, "--retries=5")
	if w.status != 0 || len(w.runs) != 2 {
		t.Errorf("status %d after %d runs, want 0 after 2", w.status, len(w.runs))
	}
}

// The real job logs: the failed jobs that ran beside another process
// holding the GPU may pass on a rerun; the jobs that succeeded pass
// through, output and status.
func TestJobCaptures(t *testing.T) {
	for _, c := range []struct {
		job  string
		want int
	}{
		{"platform_near_full_oom", DefaultMayHelpExit},
		{"cuda_async_near_full_oom", DefaultMayHelpExit},
		{"prealloc_false_leak_oom", DefaultMayHelpExit},
		{"shared_gpu_backoff_then_oom", DefaultMayHelpExit},
		{"two_jobs_second", DefaultMayHelpExit},
		{"cupy_then_jax_oom", DefaultMayHelpExit},
	} {
		t.Run(c.job, func(t *testing.T) {
			w := runWrapped(t, capture("jobs", c.job+".log"), failWithCapture)
			if w.status != c.want {
				t.Errorf("status %d, want %d: %s", w.status, c.want, w.lastLine())
			}
		})
	}
	for _, job := range []string{"shared_gpu_backoff_exit0", "caught_oom_halving_exit0", "torch_then_jax_exit0"} {
		t.Run(job, func(t *testing.T) {
			file := capture("jobs", job+".log")
			w := runWrapped(t, file, `cat "$CAPTURE"; cat "$CAPTURE" >&2`, "--retries=2")
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if w.status != 0 || w.stdout != string(want) || w.stderr != string(want) {
				t.Errorf("status %d, stdout and stderr passed through: %v %v; want 0 and both unchanged",
					w.status, w.stdout == string(want), w.stderr == string(want))
			}
		})
	}
}

// wantBatch is 256 scaled by the capture's fit fraction, rounded down: the
// program needs 64.00G of a 15.48G chip, 256 × 15.48 / 64.00 = 61.9.
const wantBatch = 61

// --batch-env: a futile failure whose fit fraction is known reruns once
// with the batch size scaled by it.
func TestSmallerBatchHook(t *testing.T) {
	file := capture("messages", "tpu-compile-hbm-used_jax7502_breakdown.txt")
	t.Setenv("BATCH_SIZE", "256")
	// The job fits from 64 on.
	fitsAt64 := `echo "run BATCH_SIZE=$BATCH_SIZE" >> "$RUNS"; [ "$BATCH_SIZE" -le 64 ] && exit 0; cat "$CAPTURE" >&2; exit 1`
	w := runWrapped(t, file, fitsAt64, "--batch-env=BATCH_SIZE")
	if w.status != 0 || len(w.runs) != 2 || w.runs[1] != "run BATCH_SIZE="+strconv.Itoa(wantBatch) {
		t.Fatalf("status %d, runs %q; want 0 after a second run with BATCH_SIZE=%d\n%s", w.status, w.runs, wantBatch, w.stderr)
	}
	if !strings.Contains(w.stderr, "BATCH_SIZE="+strconv.Itoa(wantBatch)+" instead of 256") {
		t.Errorf("the wrapper does not say it changed the batch: %s", w.stderr)
	}

	// Once only: the smaller run fails the same way, the wrapper stops.
	w = runWrapped(t, file, failWithCapture, "--batch-env=BATCH_SIZE")
	if w.status != DefaultFutileExit || len(w.runs) != 2 {
		t.Errorf("status %d after %d runs, want %d after 2", w.status, len(w.runs), DefaultFutileExit)
	}

	// No batch size to scale: futile at once.
	t.Setenv("BATCH_SIZE", "")
	w = runWrapped(t, file, failWithCapture, "--batch-env=BATCH_SIZE")
	if w.status != DefaultFutileExit || len(w.runs) != 1 {
		t.Errorf("unset batch: status %d after %d runs, want %d after 1", w.status, len(w.runs), DefaultFutileExit)
	}
}

// A failure with no OOM in its log, and one whose verdict is unknown, exit
// with the job's own status, not rerun.
func TestOtherFailuresPassThrough(t *testing.T) {
	// The job's own termination message stays.
	termination := filepath.Join(t.TempDir(), "termination-log")
	t.Setenv("TERMINATION", termination)
	w := runWrapped(t, capture("real", "control.stderr.txt"), `echo run >> "$RUNS"; cat "$CAPTURE" >&2; echo own > "$TERMINATION"; exit 3`,
		"--retries=2", "--termination-log="+termination)
	if w.status != 3 || len(w.runs) != 1 {
		t.Errorf("no OOM: status %d after %d runs, want 3 after 1", w.status, len(w.runs))
	}
	if b, _ := os.ReadFile(termination); string(b) != "own\n" {
		t.Errorf("no OOM: the termination log is %q, want the job's own", b)
	}
	// A TPU runtime failure (E0100) whose record does not show whether
	// anything outside the program held the memory: unknown.
	w = runWrapped(t, capture("messages", "tpu-runtime-buffer_E0100_factory_wrapped.txt"), failWithCapture, "--retries=2")
	if w.status != 1 || len(w.runs) != 1 || !strings.Contains(w.lastLine(), "unknown") {
		t.Errorf("unknown verdict: status %d after %d runs, want 1 after 1: %s", w.status, len(w.runs), w.lastLine())
	}
	w = runWrapped(t, capture("real", "control.stderr.txt"), `echo run >> "$RUNS"; kill -9 $$`, "--retries=2")
	if w.status != 128+9 || len(w.runs) != 1 {
		t.Errorf("killed: status %d after %d runs, want %d after 1", w.status, len(w.runs), 128+9)
	}
}

func TestCommandErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if s := Main([]string{"--", "/nonexistent/xlaoom-test-job"}, nil, &stdout, &stderr); s != ExitNotFound {
		t.Errorf("a missing command: status %d, want %d", s, ExitNotFound)
	}
	for _, args := range [][]string{{}, {"--retries=-1", "true"}, {"--futile-exit=0", "true"}, {"--nope", "true"}} {
		if s := Main(args, nil, &stdout, &stderr); s != ExitUsage {
			t.Errorf("%q: status %d, want %d", args, s, ExitUsage)
		}
	}
	// The job's flags are its own: "--retries" after the command is the job's.
	stdout.Reset()
	if s := Main([]string{"/bin/echo", "--retries=-1"}, nil, &stdout, &stderr); s != 0 || stdout.String() != "--retries=-1\n" {
		t.Errorf("status %d, stdout %q", s, stdout.String())
	}
}
