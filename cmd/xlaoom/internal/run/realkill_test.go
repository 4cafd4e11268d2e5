// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// childEnv, when set, makes this test binary `xlaoom run` itself: the real
// kill test starts it inside a memory cgroup.
const childEnv = "XLAOOM_RUN_REAL_CHILD"

// TestRealCgroupOOMKill runs `xlaoom run -- tail /dev/zero` (tail keeps the
// endless line in memory) inside a cgroup v1 memory cgroup limited to 64
// MiB: the kernel's OOM killer kills tail, the wrapper sees its cgroup's
// oom_kill count rise with the peak at the limit, and exits futile (78).
// The wrapper (this test binary, large under -race) shares the cgroup, so
// the job's oom_score_adj of 1000 decides the victim: in a memory cgroup it
// adds the whole limit to the job's score, more than the wrapper's memory
// can ever count. Where the kernel allows it, the wrapper's -1000 exempts it.
// It needs root and a writable cgroup v1 memory controller; elsewhere it
// skips and names what is missing.
func TestRealCgroupOOMKill(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		var out, errOut bytes.Buffer
		job := "echo 1000 >/proc/self/oom_score_adj && exec tail /dev/zero"
		status := Main([]string{"--termination-log=" + os.Getenv(childEnv), "--", "/bin/sh", "-c", job}, nil, &out, &errOut)
		fmt.Print(errOut.String())
		os.Exit(status)
	}
	base := "/sys/fs/cgroup/memory"
	if os.Geteuid() != 0 {
		t.Skip("needs root: a memory cgroup is made for the job")
	}
	if _, err := os.Stat(filepath.Join(base, "memory.limit_in_bytes")); err != nil {
		t.Skipf("needs the cgroup v1 memory controller at %s: %v", base, err)
	}
	if _, err := exec.LookPath("tail"); err != nil {
		t.Skip("needs tail(1)")
	}
	dir := filepath.Join(base, fmt.Sprintf("xlaoom-run-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a memory cgroup: %v", err)
	}
	t.Cleanup(func() { _ = os.Remove(dir) })
	if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte("67108864"), 0o644); err != nil {
		t.Fatal(err)
	}
	// No swap may hide the limit: memsw is set where the kernel has it.
	_ = os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), []byte("67108864"), 0o644)
	term := filepath.Join(t.TempDir(), "termination-log")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The wrapper inherits this score: at 1000 already, it ties with the job.
	if b, err := os.ReadFile("/proc/self/oom_score_adj"); err == nil && strings.TrimSpace(string(b)) == "1000" {
		t.Skip("needs an oom_score_adj below 1000: the job must outscore the wrapper")
	}
	// The shell joins the cgroup, then becomes the wrapper; lowering its
	// score needs CAP_SYS_RESOURCE, so a refusal is not an error.
	cmd := exec.Command("/bin/sh", "-c", `echo $$ > "$1/cgroup.procs" && { echo -1000 >/proc/self/oom_score_adj; } 2>/dev/null; exec "$2" -test.run='^TestRealCgroupOOMKill$'`, "sh", dir, self)
	cmd.Env = append(os.Environ(), childEnv+"="+term)
	out, _ := cmd.CombinedOutput()
	status := cmd.ProcessState.ExitCode()
	t.Logf("xlaoom run exited %d:\n%s", status, out)
	if status != DefaultFutileExit || !strings.Contains(string(out), "the kernel's OOM killer killed 1 process(es)") ||
		!strings.Contains(string(out), "memory limit of 64.00 MiB") {
		t.Errorf("status %d, want %d with the kill named", status, DefaultFutileExit)
	}
	b, err := os.ReadFile(filepath.Join(dir, "memory.oom_control"))
	if err != nil || !strings.Contains(string(b), "oom_kill 1") {
		t.Errorf("memory.oom_control: %q, %v", b, err)
	}
	if tl, err := os.ReadFile(term); err != nil || !strings.Contains(string(tl), "OOM killer killed") {
		t.Errorf("termination log: %q, %v", tl, err)
	}
}
