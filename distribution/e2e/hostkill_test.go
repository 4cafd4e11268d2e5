// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// TestHostKillRealKernel: a real kill by the kernel's OOM killer, read by the
// shipped agent (examples/agent.yaml: file_log/kernel with its filter, the
// xla_oom processor) and counted by the xla_oom connector. A process in a
// cgroup v1 memory cgroup limited to 64 MiB (tail /dev/zero keeps its
// endless line in memory) is killed by the kernel; the kernel's lines,
// copied from /dev/kmsg into a kernel log file as a node's syslog writes
// kern.log, give exactly one host kill for that cgroup, with its pid, RSS
// and limit, and no XLA failure. Needs root and the cgroup v1 memory
// controller at /sys/fs/cgroup/memory; elsewhere it skips and names what is
// missing. Other kills on the machine (other cgroups) are told apart by
// their cgroup.
func TestHostKillRealKernel(t *testing.T) {
	const base = "/sys/fs/cgroup/memory"
	switch {
	case os.Geteuid() != 0:
		t.Skip("needs root: it makes a memory cgroup and reads /dev/kmsg")
	case !exists(filepath.Join(base, "memory.limit_in_bytes")):
		t.Skipf("needs the cgroup v1 memory controller at %s (cgroup v2 alone is not driven by this test)", base)
	case !exists("/dev/kmsg"):
		t.Skip("needs /dev/kmsg")
	}
	tail, err := exec.LookPath("tail")
	if err != nil {
		t.Skip("needs tail(1)")
	}
	dir := t.TempDir()
	kernelLog := filepath.Join(dir, "kern.log")
	stopCopy := copyKmsg(t, kernelLog)
	defer stopCopy()

	overlay := filepath.Join(dir, "overlay.yaml")
	appendFile(t, overlay, jobsOverlay)
	recordsFile, metricsFile := filepath.Join(dir, "records.json"), filepath.Join(dir, "metrics.json")
	agent, _ := startProcess(t, "agent", collector.Command{
		Binary: collectorBin,
		Args: func(*collector.Ports) []string {
			return []string{"--config", filepath.Join(examplesDir, "agent.yaml"), "--config", overlay}
		},
		Env: func(p *collector.Ports) []string {
			return append(telemetryEnv(p),
				"XLAOOM_KERNEL_LOG="+kernelLog, "XLAOOM_KERNEL_START_AT=beginning",
				"XLAOOM_JOB_LOGS="+filepath.Join(dir, "no-jobs", "*", "*.log"),
				"XLAOOM_CONTAINER_LOGS="+filepath.Join(dir, "no-pods", "*", "*", "*.log"),
				"XLAOOM_START_AT=beginning", "HOST_NAME=node-1", "XLAOOM_STORAGE_DIR="+filepath.Join(dir, "storage"),
				"XLAOOM_TEST_RECORDS="+recordsFile, "XLAOOM_TEST_METRICS="+metricsFile)
		},
		Ready: []string{"health"},
	})

	// The job: its own memory cgroup of 64 MiB, then tail.
	cg := fmt.Sprintf("xlaoom-e2e-%d", os.Getpid())
	cgDir := filepath.Join(base, cg)
	if err := os.Mkdir(cgDir, 0o755); err != nil {
		t.Skipf("cannot make a memory cgroup: %v", err)
	}
	defer func() { _ = os.Remove(cgDir) }()
	if err := os.WriteFile(filepath.Join(cgDir, "memory.limit_in_bytes"), []byte("67108864"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(cgDir, "memory.memsw.limit_in_bytes"), []byte("67108864"), 0o644)
	job := exec.Command("/bin/sh", "-c", `echo $$ > "$1/cgroup.procs" && exec "$2" /dev/zero`, "sh", cgDir, tail)
	out, err := job.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != -1 && exit.ExitCode() != 137 {
		t.Fatalf("the job was not killed: %v\n%s", err, out)
	}
	pid := job.Process.Pid // the shell exec'd tail: the same pid
	t.Logf("tail (pid %d) in memory cgroup /%s ended: %v", pid, cg, job.ProcessState)

	// Exactly one kill record for the cgroup, once the agent has read it.
	var kills []records.Record
	eventually(t, 60*time.Second, func() string {
		recs, err := records.ReadFile(recordsFile)
		if err != nil {
			return err.Error()
		}
		kills = kills[:0]
		for _, r := range recs {
			if r.Str("xla.error.code") != "" {
				t.Fatalf("an XLA failure tagged: %s", r.Body)
			}
			if r.Str("xla.oom.host.limit_cgroup") == "/"+cg && r.Str("xla.oom.cause") != "" {
				kills = append(kills, r)
			}
		}
		if len(kills) == 0 {
			return "no kill record for /" + cg + " yet"
		}
		return ""
	})
	if err := agent.Stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	stopCopy()
	if b, err := os.ReadFile(kernelLog); err == nil {
		t.Logf("the kernel's lines for /%s:\n%s", cg, linesAbout(string(b), pid, cg))
	}
	recs, err := records.ReadFile(recordsFile)
	if err != nil {
		t.Fatal(err)
	}
	kills = kills[:0]
	for _, r := range recs {
		if r.Str("xla.oom.host.limit_cgroup") == "/"+cg && r.Str("xla.oom.cause") != "" {
			kills = append(kills, r)
		}
	}
	if len(kills) != 1 {
		t.Fatalf("%d kill records for /%s, want 1", len(kills), cg)
	}
	k := kills[0]
	gotPID, _ := k.Int("process.pid")
	rss, _ := k.Int("xla.oom.host.rss.size")
	limit, _ := k.Int("xla.oom.host.limit.size")
	t.Logf("kill record: %s\n  attributes: %v", k.Body, k.Attributes.AsRaw())
	if gotPID != int64(pid) || rss <= 0 || limit != 64<<20 || k.Str("process.command") != "tail" ||
		k.Str("xla.oom.host.constraint") != "cgroup" || k.Str("xla.oom.retry") != "futile" {
		t.Errorf("kill record: pid %d (want %d), rss %d, limit %d, %v", gotPID, pid, rss, limit, k.Attributes.AsRaw())
	}
	for _, r := range recs {
		if !oomLine.MatchString(r.Body) {
			t.Errorf("a kernel line that is no OOM line left the node: %q", r.Body)
		}
	}

	// The connector: host kills counted, no XLA incident.
	kills2, incidents := hostKillSums(t, metricsFile)
	t.Logf("connector: xla.oom.host.kills %d (every kill on this machine meanwhile), xla.oom.incidents %d", kills2, incidents)
	if kills2 < 1 || incidents != 0 {
		t.Errorf("xla.oom.host.kills %d, xla.oom.incidents %d: want at least 1 and 0", kills2, incidents)
	}
}

// oomLine is the agent's kernel filter (examples/agent.yaml, file_log/kernel).
var oomLine = regexp.MustCompile(`invoked oom-killer|memory: usage [0-9]+kB|Memory cgroup stats for|oom-kill:|Killed process [0-9]|Kill process [0-9]|oom_reaper: reaped|memory\.oom\.group|killed as a result of limit`)

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// copyKmsg appends the kernel's new records to path in dmesg's format
// ("[seconds.micros] message"), as a node's syslog writes its kernel log,
// until the returned func is called.
func copyKmsg(t *testing.T, path string) func() {
	t.Helper()
	kmsg, err := os.Open("/dev/kmsg")
	if err != nil {
		t.Skipf("cannot read /dev/kmsg: %v", err)
	}
	if _, err := kmsg.Seek(0, 2); err != nil { // only records from now on
		t.Fatal(err)
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := bufio.NewWriter(out)
		buf := make([]byte, 8192)
		for {
			n, err := kmsg.Read(buf) // one record per read; blocks until one comes
			if err != nil {
				return // closed
			}
			// "6,1234,2190840861,-;msg\n continuation" -> "[2190.840861] msg"
			rec := string(buf[:n])
			head, msg, ok := strings.Cut(rec, ";")
			if !ok {
				continue
			}
			msg, _, _ = strings.Cut(msg, "\n")
			var us int64
			if f := strings.Split(head, ","); len(f) >= 3 {
				_, _ = fmt.Sscan(f[2], &us)
			}
			_, _ = fmt.Fprintf(w, "[%5d.%06d] %s\n", us/1e6, us%1e6, msg)
			_ = w.Flush()
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = kmsg.Close()
			wg.Wait()
			_ = out.Close()
		})
	}
}

// linesAbout returns the kernel log's lines of the kill of pid in cg.
func linesAbout(log string, pid int, cg string) string {
	var b strings.Builder
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, cg) || strings.Contains(l, fmt.Sprintf("%d", pid)) || strings.Contains(l, "invoked oom-killer") ||
			strings.Contains(l, "memory: usage") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// hostKillSums reads the connector's output: the last xla.oom.host.kills
// and xla.oom.incidents values summed over their series.
func hostKillSums(t *testing.T, path string) (kills, incidents int64) {
	t.Helper()
	last := map[string]int64{}
	var u pmetric.JSONUnmarshaler
	err := records.EachLine(path, func(n int, line []byte) error {
		md, err := u.UnmarshalMetrics(line)
		if err != nil {
			return err
		}
		for i := 0; i < md.ResourceMetrics().Len(); i++ {
			sms := md.ResourceMetrics().At(i).ScopeMetrics()
			for j := 0; j < sms.Len(); j++ {
				ms := sms.At(j).Metrics()
				for k := 0; k < ms.Len(); k++ {
					m := ms.At(k)
					if m.Type() != pmetric.MetricTypeSum {
						continue
					}
					for _, dp := range m.Sum().DataPoints().All() {
						key := m.Name() + fmt.Sprint(md.ResourceMetrics().At(i).Resource().Attributes().AsRaw(), dp.Attributes().AsRaw())
						last[key] = dp.IntValue() // cumulative: the last point is the total
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range last {
		switch {
		case strings.HasPrefix(k, "xla.oom.host.kills"):
			kills += v
		case strings.HasPrefix(k, "xla.oom.incidents"):
			incidents += v
		}
	}
	return kills, incidents
}
