// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCgroup points the wrapper at a fake cgroup tree whose counters the
// fake job rewrites (as the kernel does when it kills one of its
// processes) from the file $NEXT, named by $COUNTERS.
func fakeCgroup(t *testing.T, v2 bool, counters, limit, peak string) {
	t.Helper()
	root := t.TempDir()
	self := filepath.Join(root, "self-cgroup")
	var dir, file, limitFile, peakFile string
	if v2 {
		dir, file, limitFile, peakFile = filepath.Join(root, "job.scope"), "memory.events", "memory.max", "memory.peak"
		must(t, os.WriteFile(self, []byte("0::/job.scope\n"), 0o644))
	} else {
		dir, file, limitFile, peakFile = filepath.Join(root, "memory", "job"), "memory.oom_control", "memory.limit_in_bytes", "memory.max_usage_in_bytes"
		must(t, os.WriteFile(self, []byte("4:memory:/job\n0::/\n"), 0o644))
	}
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, file), []byte(counters), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, limitFile), []byte(limit), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, peakFile), []byte(peak), 0o644))
	oldSelf, oldRoot := procSelfCgroup, cgroupRoot
	procSelfCgroup, cgroupRoot = self, root
	t.Cleanup(func() { procSelfCgroup, cgroupRoot = oldSelf, oldRoot })
	t.Setenv("COUNTERS", filepath.Join(dir, file))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// killedJob is a job whose process the kernel's OOM killer killed: the
// counters change to $NEXT and it exits as given (137 for the main
// process, 1 when only a worker was killed and the job gave up).
// $NEXT's %d is the number of runs so far: each run is killed once more.
func killedJob(exit string) string {
	return `echo run >> "$RUNS"; printf "$NEXT" "$(wc -l < "$RUNS")" > "$COUNTERS"; exit ` + exit
}

func TestHostKill(t *testing.T) {
	term := filepath.Join(t.TempDir(), "termination-log")
	for _, c := range []struct {
		name                 string
		v2                   bool
		before, next         string
		limit, peak          string
		exit                 string
		args                 []string
		wantStatus, wantRuns int
		want                 string
	}{
		{"v2 own limit, worker killed, exit 1", true, "low 0\nhigh 0\nmax 12\noom 0\noom_kill 0\n", "low 0\nhigh 0\nmax 40\noom 1\noom_kill 1\n",
			"1073741824\n", "1073741824\n", "1", nil, DefaultFutileExit, 1, "reached its cgroup's memory limit of 1.00 GiB; futile"},
		{"v2 own limit, main killed, 137", true, "oom 2\noom_kill 2\n", "oom 3\noom_kill 3\n",
			"max\n", "99\n", "137", nil, DefaultFutileExit, 1, "killed 1 process(es)"},
		{"v2 global OOM: may help, retried", true, "oom 0\noom_kill 0\n", "oom 0\noom_kill %d\n",
			"max\n", "99\n", "1", []string{"--retries=1"}, DefaultMayHelpExit, 2, "the node ran out of memory"},
		{"v1 at its limit", false, "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n",
			"67108864\n", "67108864\n", "137", nil, DefaultFutileExit, 1, "reached its cgroup's memory limit of 64.00 MiB"},
		{"v1 below its limit", false, "oom_kill 0\n", "oom_kill 1\n",
			"67108864\n", "1048576\n", "137", nil, DefaultMayHelpExit, 1, "may pass on a rerun"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fakeCgroup(t, c.v2, c.before, c.limit, c.peak)
			t.Setenv("NEXT", c.next)
			w := runWrapped(t, "", killedJob(c.exit), append([]string{"--termination-log=" + term}, c.args...)...)
			if w.status != c.wantStatus || len(w.runs) != c.wantRuns || !strings.Contains(w.lastLine(), c.want) {
				t.Errorf("status %d, %d runs, last line %q; want %d, %d runs, %q", w.status, len(w.runs), w.lastLine(), c.wantStatus, c.wantRuns, c.want)
			}
			b, err := os.ReadFile(term)
			if err != nil || !strings.Contains(string(b), "OOM killer killed") {
				t.Errorf("termination log: %q, %v", b, err)
			}
		})
	}
}

// TestPlainSIGKILLIsNoOOM: a job killed by a plain SIGKILL (the counters
// do not move) exits with its own status, 137, and no OOM is claimed; nor
// when the cgroup cannot be read at all.
func TestPlainSIGKILLIsNoOOM(t *testing.T) {
	for _, readable := range []bool{true, false} {
		if readable {
			fakeCgroup(t, true, "oom 0\noom_kill 0\n", "max\n", "0\n")
		} else {
			old := procSelfCgroup
			procSelfCgroup = filepath.Join(t.TempDir(), "missing")
			t.Cleanup(func() { procSelfCgroup = old })
		}
		w := runWrapped(t, "", `echo run >> "$RUNS"; kill -9 $$`)
		if w.status != 137 || strings.Contains(w.stderr, "OOM killer") {
			t.Errorf("readable %v: status %d, stderr %q", readable, w.status, w.stderr)
		}
	}
}

// TestHostKillJobSucceeded: a kill in a job that still exits 0 is said, and
// the status stays 0.
func TestHostKillJobSucceeded(t *testing.T) {
	fakeCgroup(t, true, "oom 0\noom_kill 0\n", "max\n", "0\n")
	t.Setenv("NEXT", "oom 1\noom_kill 1\n")
	w := runWrapped(t, "", killedJob("0"))
	if w.status != 0 || !strings.Contains(w.stderr, "succeeded regardless") {
		t.Errorf("status %d, stderr %q", w.status, w.stderr)
	}
}
