// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// TestJournaldHostKill: a host whose kernel log lives in the journal alone.
// The packaged single-machine config (packaging/all-in-one.yaml) with the
// packaged environment file (packaging/otelcol-xlaoom.conf, as systemd reads
// it) reads the kernel's entries with journald/kernel, and a real kernel
// kill (hostoom/testdata, as journald stores a kernel line: MESSAGE without
// dmesg's timestamp, _TRANSPORT=kernel) becomes one host kill with its pid,
// RSS and limit. Only the OOM killer's lines leave the node: the kernel's
// other lines and a program's own entry that quotes a kill line do not.
// The journal cursor is kept in file_storage: after a restart, with a new
// kill in a new journal file, only the new kill is read, the first not again.
// The journal is fed from files (the overlay sets the receiver's directory:)
// that systemd-journal-remote writes from journal export format; a test
// cannot make the kernel log into the host's journal.
func TestJournaldHostKill(t *testing.T) {
	remote := journalTools(t)
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal")
	b, err := os.ReadFile("../../hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt") // a real kill, as dmesg printed it
	if err != nil {
		t.Fatal(err)
	}
	kill := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	other := journalEntry{transport: "kernel", priority: 6, message: "usb 1-1: new high-speed USB device number 2 using xhci_hcd"}
	quote := journalEntry{transport: "syslog", priority: 3, identifier: "trainer",
		message: "Memory cgroup out of memory: Killed process 31337 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0"}

	// The kernel's other line, the program's quote, then the kill.
	boot1 := append([]journalEntry{other, quote}, kernelEntries(kill)...)
	const bootID = "0123456789abcdef0123456789abcd01"
	writeJournal(t, remote, filepath.Join(journal, "system.journal"), bootID, 1_796_000_000_000_000, 2_190_840_000, boot1)

	overlay := filepath.Join(dir, "overlay.yaml")
	appendFile(t, overlay, "receivers:\n  journald/kernel:\n    directory: "+journal+"\n")
	conf := packagedEnv(t, filepath.Join(distDir, "packaging", "otelcol-xlaoom.conf"))
	start := func(records string) (*collector.Process, *collector.Ports) {
		return startProcess(t, "all-in-one-"+filepath.Base(records), collector.Command{
			Binary: collectorBin,
			Args: func(*collector.Ports) []string {
				return []string{"--config", filepath.Join(distDir, "packaging", "all-in-one.yaml"), "--config", overlay}
			},
			Env: func(p *collector.Ports) []string {
				return append(append(conf, telemetryEnv(p)...),
					"HOST_NAME=node-1", // the unit's Environment=HOST_NAME=%H
					"XLAOOM_STORAGE_DIR="+filepath.Join(dir, "storage"), "XLAOOM_RECORDS_FILE="+records,
					"XLAOOM_LOGS="+filepath.Join(dir, "no-jobs", "*", "*.log"),
					"XLAOOM_PROMETHEUS_ENDPOINT="+p.Addr("prometheus"), "XLAOOM_EMIT_INTERVAL=1s")
			},
			Ready: []string{"health", "prometheus"},
		})
	}

	first := filepath.Join(dir, "records-1.json")
	col, ports := start(first)
	recs := journalKills(t, first, 29330)
	if n := len(recs); n != 5 {
		t.Errorf("%d records left the node, want the kill's 5 OOM lines", n)
	}
	for _, r := range recs {
		msg, transport := journalMessage(t, r)
		if transport != "kernel" || !oomLine.MatchString(msg) {
			t.Errorf("a journal entry that is no kernel OOM line left the node: %s", r.Body)
		}
		if r.ResourceStr("host.name") != "node-1" {
			t.Errorf("host.name %q, want node-1", r.ResourceStr("host.name"))
		}
	}
	k := oneKill(t, recs, 29330)
	rss, _ := k.Int("xla.oom.host.rss.size")
	limit, _ := k.Int("xla.oom.host.limit.size")
	t.Logf("kill record: %s\n  attributes: %v", k.Body, k.Attributes.AsRaw())
	if rss != 67325952 || limit != 64<<20 || k.Str("process.command") != "python3" || k.Str("xla.oom.host.constraint") != "cgroup" ||
		k.Str("xla.oom.host.cgroup") != "/xlaoom-bar-29254" || k.Str("xla.oom.retry") != "futile" {
		t.Errorf("kill record: rss %d, limit %d, %v", rss, limit, k.Attributes.AsRaw())
	}
	eventually(t, 30*time.Second, func() string {
		m, err := promtext.Scrape("http://"+ports.Addr("prometheus")+"/metrics", 5*time.Second)
		if err != nil {
			return err.Error()
		}
		kills, incidents := promtext.Sum(m, "xla_oom_host_kills_total", nil), promtext.Sum(m, "xla_oom_incidents_total", nil)
		if kills != 1 || incidents != 0 {
			return fmt.Sprintf("xla_oom_host_kills_total %v, xla_oom_incidents_total %v: want 1 and 0", kills, incidents)
		}
		return ""
	})
	// The receiver's start waits a second for journalctl to fail; a SIGTERM
	// before the collector has started (its health check says so) is not
	// yet handled and ends it at once.
	eventually(t, 30*time.Second, func() string {
		resp, err := http.Get("http://" + ports.Addr("health"))
		if err != nil {
			return err.Error()
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "health check: " + resp.Status
		}
		return ""
	})
	if err := col.Stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}

	// A new kill later in the same boot, in a new journal file (as journald
	// starts one when it rotates), read by a new collector on the same
	// storage. The cursor skips the first kill; without it, the receiver
	// (start_at: beginning) would read the first kill again, before this one.
	second := strings.NewReplacer("29330", "4242", "xlaoom-bar-29254", "xlaoom-baz-4242").Replace(strings.Join(kill, "\n"))
	writeJournal(t, remote, filepath.Join(journal, "rotated.journal"), bootID, 1_796_000_600_000_000, 2_790_840_000, // 600 s later
		kernelEntries(strings.Split(second, "\n")))
	again := filepath.Join(dir, "records-2.json")
	start(again)
	recs = journalKills(t, again, 4242)
	if n := len(recs); n != 5 {
		for _, r := range recs {
			t.Log(r.Body)
		}
		t.Errorf("after the restart: %d records, want the new kill's 5 lines", n)
	}
	oneKill(t, recs, 4242)
	for _, r := range recs {
		if msg, _ := journalMessage(t, r); strings.Contains(msg, "29330") || strings.Contains(msg, "29254") {
			t.Errorf("the first kill was read again after the restart: %s", msg)
		}
	}
}

// journalTools returns systemd-journal-remote's path; the test skips,
// naming what is missing, without it or journalctl.
func journalTools(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("journalctl"); err != nil {
		t.Skip("needs journalctl (the journald receiver runs it): apt-get install systemd")
	}
	for _, p := range []string{"/usr/lib/systemd/systemd-journal-remote", "/lib/systemd/systemd-journal-remote"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("systemd-journal-remote"); err == nil {
		return p
	}
	t.Skip("needs systemd-journal-remote (writes the test's journal files): apt-get install systemd-journal-remote")
	return ""
}

// journalEntry is one entry as journald stores it; kernel entries carry
// SYSLOG_IDENTIFIER=kernel and facility 0 (kern).
type journalEntry struct {
	transport, identifier, message string
	priority                       int
}

// kernelEntries makes the journal entries of dmesg lines ("[secs] message"):
// journald keeps the message without the timestamp, at the line's level.
func kernelEntries(lines []string) []journalEntry {
	out := make([]journalEntry, 0, len(lines))
	for _, l := range lines {
		if i := strings.Index(l, "] "); strings.HasPrefix(l, "[") && i > 0 {
			l = l[i+2:]
		}
		prio := 6 // pr_info: the memory figures, the summary, the task list
		switch {
		case strings.Contains(l, "invoked oom-killer"), strings.HasPrefix(l, "CPU: "), l == "Call Trace:":
			prio = 4 // pr_warn, dump_stack
		case strings.Contains(l, "Killed process"):
			prio = 3 // pr_err
		}
		out = append(out, journalEntry{transport: "kernel", identifier: "kernel", priority: prio, message: l})
	}
	return out
}

// writeJournal writes entries of one boot, one microsecond apart from
// realtime and monotonic (in microseconds), into a new journal file at path
// with systemd-journal-remote, from journal export format.
func writeJournal(t *testing.T, remote, path, bootID string, realtime, monotonic int64, entries []journalEntry) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i, e := range entries {
		fields := [][2]string{
			{"__REALTIME_TIMESTAMP", strconv.FormatInt(realtime+int64(i), 10)},
			{"__MONOTONIC_TIMESTAMP", strconv.FormatInt(monotonic+int64(i), 10)},
			{"_BOOT_ID", bootID}, {"_MACHINE_ID", "fedcba9876543210fedcba9876543210"}, {"_HOSTNAME", "node-1"},
			{"_TRANSPORT", e.transport}, {"PRIORITY", strconv.Itoa(e.priority)}, {"MESSAGE", e.message},
		}
		if e.transport == "kernel" {
			fields = append(fields, [2]string{"SYSLOG_FACILITY", "0"})
		}
		if e.identifier != "" {
			fields = append(fields, [2]string{"SYSLOG_IDENTIFIER", e.identifier})
		}
		for _, f := range fields {
			fmt.Fprintf(&b, "%s=%s\n", f[0], f[1])
		}
		b.WriteByte('\n')
	}
	cmd := exec.Command(remote, "--output="+path, "-")
	cmd.Stdin = &b
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("systemd-journal-remote: %v\n%s", err, out)
	}
	out, err := exec.Command("journalctl", "--file", path, "--output=short-unix", "--no-pager").CombinedOutput()
	if err != nil || bytes.Count(out, []byte("\n")) < len(entries) {
		t.Fatalf("journalctl reads back %s: %v\n%s", path, err, out)
	}
}

// packagedEnv reads a systemd EnvironmentFile (KEY=VALUE lines, quotes
// removed, comments skipped) into KEY=VALUE strings.
func packagedEnv(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		k, v, ok := strings.Cut(l, "=")
		if l == "" || strings.HasPrefix(l, "#") || !ok {
			continue
		}
		env = append(env, k+"="+strings.Trim(v, `"`))
	}
	return env
}

// journalKills waits for the kill record of pid in the records file and
// returns every record there.
func journalKills(t *testing.T, path string, pid int64) []records.Record {
	t.Helper()
	var recs []records.Record
	eventually(t, 60*time.Second, func() string {
		var err error
		if recs, err = records.ReadFile(path); err != nil {
			return err.Error()
		}
		for _, r := range recs {
			if p, _ := r.Int("process.pid"); p == pid && r.EventName == "xla.oom.host_kill" {
				return ""
			}
		}
		return fmt.Sprintf("no kill record of pid %d yet (%d records)", pid, len(recs))
	})
	return recs
}

// oneKill returns the one kill record of recs, failing on another count or
// on any XLA failure.
func oneKill(t *testing.T, recs []records.Record, pid int64) records.Record {
	t.Helper()
	var kills []records.Record
	for _, r := range recs {
		if r.Str("xla.error.code") != "" {
			t.Errorf("an XLA failure tagged: %s", r.Body)
		}
		if r.EventName == "xla.oom.host_kill" {
			kills = append(kills, r)
		}
	}
	if len(kills) != 1 {
		t.Fatalf("%d kill records, want 1", len(kills))
	}
	if p, _ := kills[0].Int("process.pid"); p != pid {
		t.Fatalf("kill of pid %d, want %d", p, pid)
	}
	return kills[0]
}

// journalMessage returns MESSAGE and _TRANSPORT of a journald record's body.
func journalMessage(t *testing.T, r records.Record) (message, transport string) {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
		t.Fatalf("a record whose body is no journal entry: %s", r.Body)
	}
	message, _ = body["MESSAGE"].(string)
	transport, _ = body["_TRANSPORT"].(string)
	return message, transport
}
