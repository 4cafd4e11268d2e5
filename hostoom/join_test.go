// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

var zero time.Time

// joinLines feeds lines through Parse and a Joiner, as xlaoom explain does.
func joinLines(j *Joiner, lines []string) []Kill {
	var out []Kill
	for _, l := range lines {
		h := logheader.SplitKernel(l)
		if s, ok := ParseLine(h.Text); ok {
			out = append(out, j.Add(h.At, s)...)
		}
	}
	return append(out, j.Flush()...)
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		out = append(out, sc.Text())
	}
	return out
}

// TestJoinRealKill: the real 6.18 kill is one Kill with its pid, RSS,
// limit and cgroup, however its lines arrive.
func TestJoinRealKill(t *testing.T) {
	lines := readLines(t, "testdata/memcg-v1-linux-6.18.dmesg.txt")
	kills := joinLines(&Joiner{}, lines)
	if len(kills) != 1 {
		t.Fatalf("got %d kills, want 1: %+v", len(kills), kills)
	}
	k := kills[0]
	want := KillReport{Kind: KernelKilled, PID: 29330, Command: "python3", RSS: (59136 + 6612) << 10, AnonRSS: 59136 << 10,
		FileRSS: 6612 << 10, Limit: 64 << 20, Usage: 64 << 20, Constraint: ConstraintCgroup, Cgroup: "/xlaoom-bar-29254",
		LimitCgroup: "/xlaoom-bar-29254", Reason: "invoked by python3"}
	if k.KillReport != want || !k.Complete || k.Tasks != 1 || k.Statements != 5 {
		t.Errorf("got %+v\nwant %+v", k, want)
	}
	if o := k.Owner(); o.Kind != OwnerCgroup || o.Path != "/xlaoom-bar-29254" {
		t.Errorf("owner %+v", o)
	}
	// The reaper's line after it joins it: no second kill.
	j := &Joiner{}
	n := len(joinLines(j, append(lines, "[ 2190.842000] oom_reaper: reaped process 29330 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB")))
	if n != 1 {
		t.Errorf("with the reaper: %d kills", n)
	}
}

// TestJoinGroupAndEvents: a memory.oom.group kill of three tasks is one
// kill of three tasks; the next event is a second kill; an event that
// never printed its kill line closes at the quiet interval with what it
// named; statements without a victim give none.
func TestJoinGroupAndEvents(t *testing.T) {
	pod := "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b3c4d_0000_1111_2222_333344445555.slice/cri-containerd-" + cid + ".scope"
	event := func(sec int, pids ...string) []string {
		ts := "[ " + string(rune('0'+sec)) + "00.000000] "
		out := []string{
			ts + "python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
			ts + "memory: usage 1048576kB, limit 1048576kB, failcnt 9",
			ts + "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=" + pod + ",task_memcg=" + pod + ",task=python,pid=" + pids[0] + ",uid=0",
			ts + "Memory cgroup out of memory: Killed process " + pids[0] + " (python) total-vm:2000000kB, anon-rss:900000kB, file-rss:100kB, shmem-rss:0kB, UID:0 pgtables:2000kB oom_score_adj:0",
		}
		if len(pids) > 1 {
			out = append(out, ts+"Tasks in "+pod+" are going to be killed due to memory.oom.group set")
			for _, p := range pids[1:] {
				out = append(out, ts+"Memory cgroup out of memory: Killed process "+p+" (pt_data_worker) total-vm:900000kB, anon-rss:100000kB, file-rss:100kB, shmem-rss:0kB, UID:0 pgtables:200kB oom_score_adj:0")
			}
		}
		return append(out, ts+"oom_reaper: reaped process "+pids[0]+" (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB")
	}
	lines := append(event(1, "100", "101", "102"), event(2, "200")...)
	if k := joinLines(&Joiner{}, lines); len(k) != 2 || k[0].Tasks != 1 {
		t.Errorf("returned at the kill line: %+v", k)
	}
	kills := joinLines(&Joiner{Hold: true}, lines)
	if len(kills) != 2 {
		t.Fatalf("got %d kills, want 2: %+v", len(kills), kills)
	}
	if kills[0].Tasks != 3 || kills[0].PID != 100 || kills[0].Limit != 1<<30 || kills[1].Tasks != 1 || kills[1].PID != 200 {
		t.Errorf("got %+v", kills)
	}
	o := kills[0].Owner()
	if o.Kind != OwnerPod || o.PodUID != "1a2b3c4d-0000-1111-2222-333344445555" || o.ContainerID != cid {
		t.Errorf("owner %+v", o)
	}

	// No kill line: the summary names the victim; it closes after Quiet.
	j := &Joiner{Quiet: time.Second}
	open := event(3, "300")[:3]
	if k := joinLines(&Joiner{}, open); len(k) != 1 || k[0].PID != 300 || k[0].Complete {
		t.Errorf("flushed event without its kill line: %+v", k)
	}
	for _, l := range open {
		h := logheader.SplitKernel(l)
		s, _ := ParseLine(h.Text)
		if k := j.Add(h.At, s); len(k) != 0 {
			t.Fatalf("closed early: %+v", k)
		}
	}
	if k := j.Expire(time.Unix(400, 0)); len(k) != 1 || k[0].PID != 300 {
		t.Errorf("Expire: %+v", k)
	}
	// Only the start and the usage: no victim, no kill.
	if k := joinLines(&Joiner{}, event(4, "400")[:2]); len(k) != 0 {
		t.Errorf("an event without a victim: %+v", k)
	}
}

// TestJoinBounded: a stream of kernel lines that never ends an event
// closes it at MaxStatements; the key memory keeps MaxKeys keys.
func TestJoinBounded(t *testing.T) {
	j := &Joiner{MaxStatements: 4, MaxKeys: 2}
	var kills []Kill
	for i := 0; i < 10; i++ {
		kills = append(kills, j.Add(zero, KillReport{Kind: KernelSummary, PID: int64(i + 1), Cgroup: "/a"})...)
	}
	if len(kills) != 2 || kills[0].Statements != 4 {
		t.Errorf("got %d kills: %+v", len(kills), kills)
	}
	for _, k := range []string{"a", "b", "c", "a"} {
		j.Add(zero, KillReport{Kind: PodOOMKilled, Key: k})
	}
	if len(j.keys) != 2 || strings.Join(j.keys, ",") != "c,a" {
		t.Errorf("keys %v", j.keys)
	}
}

func TestRetry(t *testing.T) {
	for _, c := range []struct {
		k    Kill
		want string
	}{
		{Kill{KillReport: KillReport{Kind: KernelKilled, Constraint: ConstraintCgroup}}, "futile"},
		{Kill{KillReport: KillReport{Kind: KernelKilled, Constraint: ConstraintGlobal}}, "may_help"},
		{Kill{KillReport: KillReport{Kind: KernelSummary, Constraint: ConstraintCpuset}}, "may_help"},
		{Kill{KillReport: KillReport{Kind: KernelKilled}}, "unknown"}, // a kill line before 5.1, alone
		{Kill{KillReport: KillReport{Kind: PodOOMKilled, Constraint: ConstraintCgroup}}, "unknown"},
		{Kill{KillReport: KillReport{Kind: SlurmOOM, Constraint: ConstraintCgroup}}, "unknown"},
		{Kill{KillReport: KillReport{Kind: Eviction, Constraint: ConstraintGlobal}}, "may_help"},
		{Kill{KillReport: KillReport{Kind: OomdKill, Constraint: ConstraintCgroup}}, "may_help"},
		{Kill{KillReport: KillReport{Kind: RayOOM}}, "may_help"},
	} {
		if got, _ := c.k.Retry(); got != c.want {
			t.Errorf("%v %q: %s, want %s", c.k.Kind, c.k.Constraint, got, c.want)
		}
		if a := c.k.Advice(); len(a) != 4 || c.k.Cause() == "" {
			t.Errorf("%v: advice %q", c.k.Kind, a)
		}
	}
}
