// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector"
)

// The cgroups of the kills below: two containers of one pod (systemd
// driver), a Slurm step (cgroup v2) and a unit.
const (
	podUID    = "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f"
	trainerID = "4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
	loaderID  = "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b"
	podSlice  = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice"
	stepCG    = "/system.slice/slurmstepd.scope/job_8841/step_0/user/task_0"
	unitCG    = "/system.slice/train.service"
)

// kernelKill is the kernel's lines of one cgroup kill (5.4+), as a kernel
// log file reader delivers them.
func kernelKill(cg string, pid int) []string {
	return []string{
		"memory: usage 16777216kB, limit 16777216kB, failcnt 0",
		fmt.Sprintf("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=python,pid=%d,uid=0", cg, cg, pid),
		fmt.Sprintf("Memory cgroup out of memory: Killed process %d (python) total-vm:30000000kB, anon-rss:16700000kB, file-rss:60000kB, shmem-rss:0kB, UID:0 pgtables:33000kB oom_score_adj:985", pid),
	}
}

// podOOMKilled is a k8sobjects watch event of the pod whose container
// (name, id) ended OOMKilled.
func podOOMKilled(t *testing.T, name, id string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"trainer-0","uid":"`+podUID+`"},
	 "status":{"containerStatuses":[{"name":"`+name+`","restartCount":1,"containerID":"containerd://`+id+`",
	 "lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled","finishedAt":"2026-11-27T18:48:46Z"}}}]}}}`), &m))
	return m
}

// report is one agent's records: a string line or a map body each, at a
// time after the test's base, on a resource.
type report struct {
	resource map[string]any
	at       []time.Duration
	lines    []string
	bodies   []map[string]any
}

func (r report) logs(base time.Time) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	_ = rl.Resource().Attributes().FromRaw(r.resource)
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for i, l := range r.lines {
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(base.Add(r.at[i])))
		lr.Body().SetStr(l)
	}
	for i, b := range r.bodies {
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(base.Add(r.at[len(r.lines)+i])))
		_ = lr.Body().SetEmptyMap().FromRaw(b)
	}
	return ld
}

func every(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d + time.Duration(i)*time.Millisecond
	}
	return out
}

// TestHostKillCountedOnce: the reports of one kill by two or three sources
// (the kernel's lines, a Pod's OOMKilled status, slurmstepd's and srun's
// lines, systemd's unit line, kubelet's SystemOOM line), each read by an
// agent of its own, carry one xla.oom.incident.id, and the connector
// downstream counts one kill in xla.oom.host.kills; different kills count
// apart, the same unit killed twice within the window included. Reports
// that straddle a bucket edge carry two ids and still count once.
func TestHostKillCountedOnce(t *testing.T) {
	node := map[string]any{"host.name": "node-7"}
	cluster := map[string]any{"k8s.cluster.name": "c1"} // the k8sobjects receiver's
	jobOutput := map[string]any{"host.name": "login-1", "service.name": "slurm-8841"}
	base := time.Date(2026, 11, 27, 18, 48, 30, 0, time.UTC) // 30 s into a minute bucket
	pod, loader := podUID+"/"+trainerID, podUID+"/"+loaderID
	for _, c := range []struct {
		name    string
		reports []report
		// kills is the xla.oom.host.kills wanted; ids the kill records'
		// distinct xla.oom.incident.id per owner (by the cgroup or pod
		// the test names).
		kills int64
		ids   map[string]int
	}{
		{name: "kernel and pod status", kills: 1, ids: map[string]int{pod: 1}, reports: []report{
			{resource: node, at: every(0, 3), lines: kernelKill(podSlice+"/cri-containerd-"+trainerID+".scope", 4242)},
			{resource: cluster, at: []time.Duration{3 * time.Second}, bodies: []map[string]any{podOOMKilled(t, "trainer", trainerID)}},
		}},
		{name: "two containers of the pod", kills: 2, ids: map[string]int{pod: 1, loader: 1}, reports: []report{
			{resource: node, at: every(0, 6), lines: append(kernelKill(podSlice+"/cri-containerd-"+trainerID+".scope", 4242),
				kernelKill(podSlice+"/cri-containerd-"+loaderID+".scope", 4343)...)},
			{resource: cluster, at: []time.Duration{3 * time.Second, 4 * time.Second},
				bodies: []map[string]any{podOOMKilled(t, "trainer", trainerID), podOOMKilled(t, "loader", loaderID)}},
		}},
		{name: "kernel, slurmstepd and srun", kills: 1, ids: map[string]int{"8841.0": 1}, reports: []report{
			{resource: node, at: every(0, 3), lines: kernelKill(stepCG, 5151)},
			{resource: jobOutput, at: every(2*time.Second, 2), lines: []string{
				"slurmstepd: error: Detected 1 oom_kill event in StepId=8841.0. Some of the step tasks have been OOM Killed.",
				"srun: error: node-7: task 0: Out Of Memory",
			}},
		}},
		{name: "a unit killed twice, with systemd's lines", kills: 2, ids: map[string]int{"train.service": 1}, reports: []report{
			{resource: node, at: append(append(every(0, 3), time.Second), append(every(20*time.Second, 3), 21*time.Second)...),
				lines: append(append(kernelKill(unitCG, 6001), "train.service: A process of this unit has been killed by the OOM killer."),
					append(kernelKill(unitCG, 6002), "train.service: A process of this unit has been killed by the OOM killer.")...)},
		}},
		{name: "a global kill and kubelet's SystemOOM line", kills: 1, ids: map[string]int{"pid 4242": 1}, reports: []report{
			{resource: node, at: every(0, 2), lines: []string{
				"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/,task=python3,pid=4242,uid=0",
				"Out of memory: Killed process 4242 (python3) total-vm:30000000kB, anon-rss:16700000kB, file-rss:60000kB, shmem-rss:0kB, UID:0 pgtables:33000kB oom_score_adj:0",
			}},
			{resource: node, at: []time.Duration{time.Second}, lines: []string{
				`I1127 18:48:31.000000    2231 oom_watcher_linux.go:80] "Got sys oom event" event="&{Pid:4242 ProcessName:python3 TimeOfDeath:2026-11-27 18:48:30 +0000 UTC ContainerName:/ VictimContainerName:/ Constraint:CONSTRAINT_NONE}"`,
			}},
		}},
		{name: "across a bucket edge", kills: 1, ids: map[string]int{pod: 2}, reports: []report{
			{resource: node, at: every(29*time.Second, 3), lines: kernelKill(podSlice+"/cri-containerd-"+trainerID+".scope", 4242)},
			{resource: cluster, at: []time.Duration{31 * time.Second}, bodies: []map[string]any{podOOMKilled(t, "trainer", trainerID)}},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tagged []plog.Logs
			ids := map[string]map[string]bool{}
			cfg := createDefaultConfig()
			cfg.HostKillTails = true // Slurm's and systemd's plain lines too
			for _, r := range c.reports {
				out := run(t, cfg, processortest.NewNopSettings(metadata.Type), r.logs(base))
				tagged = append(tagged, out)
				for _, rl := range out.ResourceLogs().All() {
					for _, lr := range rl.ScopeLogs().At(0).LogRecords().All() {
						if !oomattr.HostKilled(lr.Attributes()) {
							continue
						}
						id, _ := lr.Attributes().Get(oomattr.Incident)
						owner := ownerOf(lr.Attributes())
						if ids[owner] == nil {
							ids[owner] = map[string]bool{}
						}
						ids[owner][id.Str()] = true
					}
				}
			}
			got := map[string]int{}
			for owner, set := range ids {
				got[owner] = len(set)
			}
			assert.Equal(t, c.ids, got, "distinct xla.oom.incident.id per owner")

			sink := new(consumertest.MetricsSink)
			f := xlaoomconnector.NewFactory()
			conn, err := f.CreateLogsToMetrics(context.Background(), connectortest.NewNopSettings(f.Type()), f.CreateDefaultConfig(), sink)
			require.NoError(t, err)
			require.NoError(t, conn.Start(context.Background(), componenttest.NewNopHost()))
			for _, ld := range tagged {
				require.NoError(t, conn.ConsumeLogs(context.Background(), ld))
			}
			require.NoError(t, conn.Shutdown(context.Background()))
			var kills int64
			for _, md := range sink.AllMetrics() {
				for _, rm := range md.ResourceMetrics().All() {
					for _, sm := range rm.ScopeMetrics().All() {
						for _, m := range sm.Metrics().All() {
							if m.Name() == "xla.oom.host.kills" {
								for _, dp := range m.Sum().DataPoints().All() {
									kills += dp.IntValue()
								}
							}
						}
					}
				}
			}
			assert.Equal(t, c.kills, kills, "xla.oom.host.kills")
		})
	}
}

// ownerOf names a kill record's owner as the test's table does.
func ownerOf(attrs pcommon.Map) string {
	a := attrs.AsRaw()
	switch {
	case a[oomattr.K8sPodUID] != nil:
		return fmt.Sprint(a[oomattr.K8sPodUID], "/", a[oomattr.ContainerID])
	case a[oomattr.HostSlurmJob] != nil:
		return fmt.Sprint(a[oomattr.HostSlurmJob], ".", a[oomattr.HostSlurmStep])
	case a[oomattr.HostUnit] != nil:
		return fmt.Sprint(a[oomattr.HostUnit])
	case a[oomattr.HostOwner] == "node":
		return fmt.Sprint("pid ", a[oomattr.ProcessPID])
	}
	return strings.TrimSpace(fmt.Sprint(a))
}
