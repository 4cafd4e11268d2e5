// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

func hostTestProcessor(t *testing.T) *logsProcessor {
	t.Helper()
	tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	return newTestProcessor(createDefaultConfig(), tb)
}

// kernelBatch is one node's records, one per line, as a kernel log file
// or /dev/kmsg reader delivers them.
func kernelBatch(lines []string, body func(plog.LogRecord, string)) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("host.name", "node-7")
	sl := rl.ScopeLogs().AppendEmpty()
	for i, l := range lines {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Unix(1790000000, int64(i)*1000)))
		body(lr, l)
	}
	return ld
}

func stringBody(lr plog.LogRecord, l string) { lr.Body().SetStr(l) }

// journaldBody is a kernel entry as the journald receiver gives it: the
// line without dmesg's "[ seconds]" in MESSAGE.
func journaldBody(lr plog.LogRecord, l string) {
	m := lr.Body().SetEmptyMap()
	m.PutStr("MESSAGE", logheader.SplitKernel(l).Text)
	m.PutStr("_TRANSPORT", "kernel")
	m.PutStr("SYSLOG_IDENTIFIER", "kernel")
}

// quotedBody is a program's journal entry that quotes a kernel line.
func quotedBody(lr plog.LogRecord, l string) {
	m := lr.Body().SetEmptyMap()
	m.PutStr("MESSAGE", logheader.SplitKernel(l).Text)
	m.PutStr("_TRANSPORT", "stdout")
	m.PutStr("SYSLOG_IDENTIFIER", "node-monitor")
}

// A program's journal entries that quote the kernel's kill lines are no kill.
func TestProcessorHostKillQuotedInJournal(t *testing.T) {
	p := hostTestProcessor(t)
	ld := kernelBatch(realKillLines(t), quotedBody)
	if _, err := p.processLogs(context.Background(), ld); err != nil {
		t.Fatal(err)
	}
	if got := kills(t, ld); len(got) != 0 {
		t.Errorf("%d kill records from a program's entries, want 0", len(got))
	}
}

func realKillLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// kills returns the records that carry a host kill; it fails on any
// record tagged as an XLA failure.
func kills(t *testing.T, ld plog.Logs) []plog.LogRecord {
	t.Helper()
	var out []plog.LogRecord
	for i := 0; i < ld.ResourceLogs().Len(); i++ {
		sls := ld.ResourceLogs().At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				if oomattr.Tagged(lrs.At(k).Attributes()) {
					t.Errorf("an XLA failure tagged: %v", lrs.At(k).Attributes().AsRaw())
				}
				if oomattr.HostKilled(lrs.At(k).Attributes()) {
					out = append(out, lrs.At(k))
				}
			}
		}
	}
	return out
}

// TestProcessorHostKillReal: the real 6.18 kill, as string records and as
// journald entries, is one kill record with its pid, RSS, limit and
// verdict; its other kernel lines carry only their statement.
func TestProcessorHostKillReal(t *testing.T) {
	for name, body := range map[string]func(plog.LogRecord, string){"string": stringBody, "journald": journaldBody} {
		p := hostTestProcessor(t)
		ld := kernelBatch(realKillLines(t), body)
		if _, err := p.processLogs(context.Background(), ld); err != nil {
			t.Fatal(err)
		}
		got := kills(t, ld)
		if len(got) != 1 {
			t.Fatalf("%s: %d kill records, want 1", name, len(got))
		}
		a := got[0].Attributes().AsRaw()
		want := map[string]any{"process.pid": int64(29330), "process.command": "python3", "xla.oom.host.rss.size": int64(67325952),
			"xla.oom.host.limit.size": int64(67108864), "xla.oom.host.constraint": "cgroup", "xla.oom.retry": "futile",
			"xla.oom.host.source": "kernel", "xla.oom.host.cgroup": "/xlaoom-bar-29254", "xla.oom.host.owner": "cgroup"}
		for k, v := range want {
			if a[k] != v {
				t.Errorf("%s: %s = %v, want %v", name, k, a[k], v)
			}
		}
		if got[0].EventName() != oomattr.EventHostKill || a[oomattr.Incident] == nil || got[0].SeverityText() != "ERROR" {
			t.Errorf("%s: event %q, attributes %v", name, got[0].EventName(), a)
		}
		statements := 0
		lrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
		for i := 0; i < lrs.Len(); i++ {
			if _, ok := lrs.At(i).Attributes().Get(oomattr.HostStatement); ok {
				statements++
			}
		}
		// string: the lines the prefilter's host cues pass (usage, summary,
		// kill); journald: every statement (invoked and stats too).
		if want := map[string]int{"string": 3, "journald": 5}[name]; statements != want {
			t.Errorf("%s: %d records with a statement, want %d", name, statements, want)
		}
		// Processing twice equals processing once.
		if _, err := p.processLogs(context.Background(), ld); err != nil || len(kills(t, ld)) != 1 {
			t.Errorf("%s: a second pass changed the kills", name)
		}
	}
}

// TestProcessorHostKillOwner: a kill in a pod's container cgroup moves to a
// resource that names the pod and the container.
func TestProcessorHostKillOwner(t *testing.T) {
	const cg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice/cri-containerd-4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a.scope"
	lines := []string{
		"[ 500.000001] python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=985",
		"[ 500.000002] memory: usage 16777216kB, limit 16777216kB, failcnt 0",
		"[ 500.000003] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=" + cg[1:] + ",mems_allowed=0-1,oom_memcg=" + cg + ",task_memcg=" + cg + ",task=python,pid=4242,uid=0",
		"[ 500.000004] Memory cgroup out of memory: Killed process 4242 (python) total-vm:30000000kB, anon-rss:16700000kB, file-rss:60000kB, shmem-rss:0kB, UID:0 pgtables:33000kB oom_score_adj:985",
		"[ 500.000005] oom_reaper: reaped process 4242 (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
		"an ordinary line between",
	}
	p := hostTestProcessor(t)
	ld := kernelBatch(lines, stringBody)
	if _, err := p.processLogs(context.Background(), ld); err != nil {
		t.Fatal(err)
	}
	if n := ld.LogRecordCount(); n != len(lines) {
		t.Fatalf("%d records, want %d: none dropped", n, len(lines))
	}
	got := kills(t, ld)
	if len(got) != 1 || ld.ResourceLogs().Len() != 2 {
		t.Fatalf("%d kills in %d resources", len(got), ld.ResourceLogs().Len())
	}
	res := ld.ResourceLogs().At(1).Resource().Attributes().AsRaw()
	if res["k8s.pod.uid"] != "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f" || res["container.id"] != "4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a" || res["host.name"] != "node-7" {
		t.Errorf("owner resource %v", res)
	}
	if a := got[0].Attributes().AsRaw(); a["xla.oom.host.owner"] != "k8s_pod" || a["xla.oom.host.limit.size"] != int64(16<<30) {
		t.Errorf("attributes %v", a)
	}
}

// TestProcessorHostKillK8sObjects: a pod watch repeating one OOMKilled last
// state is one kill; a SystemOOM event is one; look-alikes none.
func TestProcessorHostKillK8sObjects(t *testing.T) {
	pod := `{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"trainer-0","uid":"8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f"},
	 "status":{"containerStatuses":[{"name":"trainer","restartCount":1,"containerID":"containerd://4f3a2b1c0d9e",
	 "lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled","finishedAt":"2026-11-27T18:48:46Z"}}}]}}}`
	event := `{"type":"ADDED","object":{"kind":"Event","reason":"SystemOOM","type":"Warning",
	 "message":"System OOM encountered, victim process: python3, pid: 4242","involvedObject":{"kind":"Node","name":"node-7"}}}`
	var bodies []map[string]any
	for _, s := range []string{pod, pod, event} {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, m)
	}
	ld := kernelBatch([]string{"0", "1", "2", "Killed", "Set oom_score_adj to -999 for pid 1"}, func(lr plog.LogRecord, l string) {
		if i := int(l[0] - '0'); len(l) == 1 && i < len(bodies) {
			_ = lr.Body().SetEmptyMap().FromRaw(bodies[i])
			return
		}
		lr.Body().SetStr(l)
	})
	p := hostTestProcessor(t)
	if _, err := p.processLogs(context.Background(), ld); err != nil {
		t.Fatal(err)
	}
	got := kills(t, ld)
	if len(got) != 2 {
		t.Fatalf("%d kills, want 2", len(got))
	}
	var sources []string
	for _, lr := range got {
		v, _ := lr.Attributes().Get(oomattr.HostStatement)
		sources = append(sources, v.Str())
	}
	if strings.Join(sources, ",") != "k8s_system_oom,k8s_oomkilled" && strings.Join(sources, ",") != "k8s_oomkilled,k8s_system_oom" {
		t.Errorf("kills %v", sources)
	}
}

// Slurm's plain lines hold no OOM keyword: read by how they end where
// host_kill_tails asks, passed over (at no cost) where it does not.
func TestProcessorHostKillTails(t *testing.T) {
	line := "slurmstepd: error: Detected 1 oom_kill event in StepId=8841.0. Some of the step tasks have been OOM Killed."
	for _, on := range []bool{false, true} {
		cfg := createDefaultConfig()
		cfg.HostKillTails = on
		tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
		if err != nil {
			t.Fatal(err)
		}
		p := newTestProcessor(cfg, tb)
		ld := kernelBatch([]string{line}, stringBody)
		if _, err := p.processLogs(context.Background(), ld); err != nil {
			t.Fatal(err)
		}
		if got := len(kills(t, ld)); got != map[bool]int{false: 0, true: 1}[on] {
			t.Errorf("host_kill_tails %v: %d kill records", on, got)
		}
	}
}

// A failure open on another stream (a job's log) does not stop the tails
// from being read.
func TestProcessorHostKillTailsWhileFailureOpen(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.HostKillTails = true
	tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	p := newTestProcessor(cfg, tb)
	if _, err := p.processLogs(context.Background(), hostBatch("gpu-host-01", jobAllocator)); err != nil {
		t.Fatal(err)
	}
	if !p.assembler.Open() {
		t.Fatal("the job's failure is not open")
	}
	ld := kernelBatch([]string{"slurmstepd: error: Detected 1 oom_kill event in StepId=8841.0. Some of the step tasks have been OOM Killed."}, stringBody)
	if _, err := p.processLogs(context.Background(), ld); err != nil {
		t.Fatal(err)
	}
	if got := len(kills(t, ld)); got != 1 {
		t.Errorf("%d kill records, want 1", got)
	}
}

// A selection line whose kill line never comes (kernels 2.6.39-5.0; a grep
// for "Kill process" keeps only it) is a kill when its stream goes quiet,
// of wall clock, sent in its stream's resource and marked kernel_select; once.
func TestProcessorSelectionOnlyKillAtQuiet(t *testing.T) {
	const sel = "[ 3920.118511] Memory cgroup out of memory: Kill process 9120 (python3) score 998 or sacrifice child" // 4.4-5.0 oom_kill_process
	for _, body := range []func(plog.LogRecord, string){stringBody, journaldBody} {
		p := hostTestProcessor(t)
		ld := kernelBatch([]string{sel}, body)
		if _, err := p.processLogs(context.Background(), ld); err != nil {
			t.Fatal(err)
		}
		if got := len(kills(t, ld)); got != 0 {
			t.Fatalf("%d kill records before the stream went quiet", got)
		}
		if got := p.assembler.ExpireKills(time.Now().Add(5 * time.Second)); len(got) != 0 {
			t.Fatalf("%d kills before the quiet interval", len(got))
		}
		ended := p.assembler.ExpireKills(time.Now().Add(time.Minute))
		if len(ended) != 1 || ended[0].Kind.String() != "kernel_select" || ended[0].PID != 9120 || ended[0].Complete {
			t.Fatalf("ended %+v, want one kernel_select kill of pid 9120", ended)
		}
		if o, _ := ended[0].Origin.(*origin); o == nil {
			t.Fatal("no origin: the kill has no resource to be sent in")
		} else if v, _ := o.resource.Attributes().Get("host.name"); v.Str() != "node-7" {
			t.Errorf("sent in resource %v", o.resource.Attributes().AsRaw())
		}
		if again := p.assembler.ExpireKills(time.Now().Add(time.Hour)); len(again) != 0 {
			t.Errorf("%d kills ended twice", len(again))
		}
	}
}
