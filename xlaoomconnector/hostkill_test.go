// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

// hostKillsBy returns xla.oom.host.kills per service.name, source,
// constraint and retry.
func hostKillsBy(md pmetric.Metrics) map[string]int64 {
	counts := map[string]int64{}
	forEachMetric(md, func(res pcommon.Resource, m pmetric.Metric) {
		if m.Name() != "xla.oom.host.kills" {
			return
		}
		svc, _ := res.Attributes().Get("service.name")
		for _, dp := range m.Sum().DataPoints().All() {
			a := dp.Attributes().AsRaw()
			counts[svc.Str()+"/"+str(a[oomattr.HostSource])+"/"+str(a[oomattr.HostConstraint])+"/"+str(a[oomattr.Retry])] += dp.IntValue()
		}
	})
	return counts
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// TestHostKills: each kill counts once in xla.oom.host.kills, per
// job, with its source, constraint and verdict; the statements of a kill
// and the kills never count as XLA failures; a hand-made source outside
// the set is "other".
func TestHostKills(t *testing.T) {
	kill := func(line string) *hostoom.Kill {
		s, ok := hostoom.Parse(line)
		if !ok {
			t.Fatalf("not a statement: %s", line)
		}
		return &hostoom.Kill{KillReport: s, Tasks: 1, Complete: true}
	}
	memcg := kill("Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0")
	memcg.Constraint = hostoom.ConstraintCgroup
	memcg2 := *memcg // another kill of the job: another victim
	memcg2.PID = 29331
	global := kill("Out of memory: Killed process 1234 (pt_data_worker) total-vm:10485760kB, anon-rss:8388608kB, file-rss:4kB, shmem-rss:1024kB, UID:1000 pgtables:16500kB oom_score_adj:0")

	ld := plog.NewLogs()
	for _, job := range []struct {
		svc   string
		kills []*hostoom.Kill
	}{{"trainer", []*hostoom.Kill{memcg, &memcg2}}, {"evaluator", []*hostoom.Kill{global}}} {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", job.svc)
		rl.Resource().Attributes().PutStr("host.name", "node-7")
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		for _, k := range job.kills {
			oomattr.PutHostKill(k, lrs.AppendEmpty().Attributes())
		}
		// A statement of a kill, not a kill.
		st := hostoom.KillReport{Kind: hostoom.KernelUsage}
		oomattr.PutHostStatement(&st, lrs.AppendEmpty().Attributes())
	}
	bogus := ld.ResourceLogs().At(1).ScopeLogs().At(0).LogRecords().AppendEmpty().Attributes()
	other := *global
	other.PID = 1235
	oomattr.PutHostKill(&other, bogus)
	bogus.PutStr(oomattr.HostSource, "made-up")

	forEachTemporality(t, func(t *testing.T, cfg *Config) {
		sink := new(consumertest.MetricsSink)
		c, _ := newTestConnector(t, cfg, settings(), sink)
		got := consumeAndEmit(t, c, sink, ld)
		assert.Equal(t, map[string]int64{
			"trainer/kernel/cgroup/futile":     2,
			"evaluator/kernel/global/may_help": 1,
			"evaluator/other/global/may_help":  1,
		}, hostKillsBy(got))
		assert.Equal(t, int64(0), sumErrors(got), "a host kill is no XLA failure")
		forEachMetric(got, func(res pcommon.Resource, m pmetric.Metric) {
			if _, host := res.Attributes().Get("host.name"); host && m.Name() == "xla.oom.host.kills" {
				t.Errorf("host kills belong to the job resource: %v", res.Attributes().AsRaw())
			}
			if m.Name() == "xla.oom.incidents" {
				t.Errorf("a host kill opened an XLA incident")
			}
		})
	})
}

// TestHostKillsOncePerKill: the connector counts one kill however many
// sources report it (killMemory): the kernel's record and a Pod's
// OOMKilled status of one container (on different resources), the
// kernel's and slurmstepd's of one step; a retried delivery of a record;
// but two containers, and one unit killed twice by the kernel within the
// window, count apart.
func TestHostKillsOncePerKill(t *testing.T) {
	const cid = "4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
	kernel := func(cg string, pid int64) *hostoom.Kill {
		return &hostoom.Kill{KillReport: hostoom.KillReport{Kind: hostoom.KernelKilled, PID: pid, Command: "python",
			Cgroup: cg, Constraint: hostoom.ConstraintCgroup}, Tasks: 1, Complete: true}
	}
	podCG := "/kubepods/burstable/pod8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f/"
	status := &hostoom.Kill{KillReport: hostoom.KillReport{Kind: hostoom.PodOOMKilled, Constraint: hostoom.ConstraintCgroup,
		PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", ContainerID: cid, Container: "trainer"}, Tasks: 1, Complete: true}
	slurm := &hostoom.Kill{KillReport: hostoom.KillReport{Kind: hostoom.SlurmOOM, Job: "8841", Step: "0", Count: 1,
		Constraint: hostoom.ConstraintCgroup}, Tasks: 1, Complete: true}
	base := time.Date(2026, 11, 27, 18, 48, 30, 0, time.UTC)
	type rec struct {
		res  map[string]any
		kill *hostoom.Kill
		at   time.Duration
	}
	node := map[string]any{"host.name": "node-7", "service.name": "trainer"}
	for _, c := range []struct {
		name string
		recs []rec
		want int64
	}{
		{"kernel and pod status", []rec{{node, kernel(podCG+cid, 4242), 0}, {map[string]any{"service.name": "trainer"}, status, 3 * time.Second}}, 1},
		{"pod status first, across a minute", []rec{{map[string]any{"service.name": "trainer"}, status, 29 * time.Second}, {node, kernel(podCG+cid, 4242), 31 * time.Second}}, 1},
		{"kernel and slurmstepd", []rec{{node, kernel("/system.slice/slurmstepd.scope/job_8841/step_0/user/task_0", 5151), 0}, {map[string]any{"service.name": "trainer"}, slurm, 2 * time.Second}}, 1},
		{"a retried delivery", []rec{{node, kernel("/system.slice/train.service", 6001), 0}, {node, kernel("/system.slice/train.service", 6001), 0}}, 1},
		{"two containers", []rec{{node, kernel(podCG+cid, 4242), 0}, {node, kernel(podCG+"9a8b7c6d5e4f", 4343), time.Second}}, 2},
		{"a unit killed twice", []rec{{node, kernel("/system.slice/train.service", 6001), 0}, {node, kernel("/system.slice/train.service", 6002), 20 * time.Second}}, 2},
		{"one unit on two nodes", []rec{{node, kernel("/system.slice/train.service", 6001), 0}, {map[string]any{"host.name": "node-8", "service.name": "trainer"}, kernel("/system.slice/train.service", 6001), 0}}, 2},
		{"the same pod kill a window later", []rec{{node, kernel(podCG+cid, 4242), 0}, {map[string]any{"service.name": "trainer"}, status, 2 * time.Minute}}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			forEachTemporality(t, func(t *testing.T, cfg *Config) {
				sink := new(consumertest.MetricsSink)
				conn, _ := newTestConnector(t, cfg, settings(), sink)
				var batches []plog.Logs
				for _, r := range c.recs {
					ld := plog.NewLogs()
					rl := ld.ResourceLogs().AppendEmpty()
					_ = rl.Resource().Attributes().FromRaw(r.res)
					lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
					lr.SetTimestamp(pcommon.NewTimestampFromTime(base.Add(r.at)))
					oomattr.PutHostKill(r.kill, lr.Attributes())
					batches = append(batches, ld)
				}
				var n int64
				for _, v := range hostKillsBy(consumeAndEmit(t, conn, sink, batches...)) {
					n += v
				}
				assert.Equal(t, c.want, n)
			})
		})
	}
}

// TestHostKillVerdictSettled: a kill counted from the Pod's OOMKilled
// status (unknown alone) takes the verdict of the kernel's report of the
// same kill in the same batch.
func TestHostKillVerdictSettled(t *testing.T) {
	const cid = "4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
	status := &hostoom.Kill{KillReport: hostoom.KillReport{Kind: hostoom.PodOOMKilled, Constraint: hostoom.ConstraintCgroup,
		PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", ContainerID: cid, Container: "trainer"}, Tasks: 1, Complete: true}
	kernel := &hostoom.Kill{KillReport: hostoom.KillReport{Kind: hostoom.KernelKilled, PID: 4242, Command: "python",
		Cgroup: "/kubepods/burstable/pod8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f/" + cid, Constraint: hostoom.ConstraintCgroup}, Tasks: 1, Complete: true}
	base := time.Date(2026, 11, 27, 18, 48, 30, 0, time.UTC)
	ld := plog.NewLogs()
	for i, k := range []*hostoom.Kill{kernel, status} {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "trainer")
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(base.Add(time.Duration(1-i) * time.Second))) // the status first
		oomattr.PutHostKill(k, lr.Attributes())
	}
	if v, _ := ld.ResourceLogs().At(1).ScopeLogs().At(0).LogRecords().At(0).Attributes().Get(oomattr.Retry); v.Str() != "unknown" {
		t.Fatalf("a Pod status alone: %q, want unknown", v.Str())
	}
	forEachTemporality(t, func(t *testing.T, cfg *Config) {
		sink := new(consumertest.MetricsSink)
		conn, _ := newTestConnector(t, cfg, settings(), sink)
		assert.Equal(t, map[string]int64{"trainer/kubernetes/cgroup/futile": 1}, hostKillsBy(consumeAndEmit(t, conn, sink, ld)))
	})
}
