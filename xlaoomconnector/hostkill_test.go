// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"testing"

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

// TestHostKills: each kill record counts once in xla.oom.host.kills, per
// job, with its source, constraint and verdict; the statements of a kill
// and the kills never count as XLA failures; a hand-made source outside
// the set is "other".
func TestHostKills(t *testing.T) {
	kill := func(line string) *hostoom.Kill {
		s, ok := hostoom.Parse(line)
		if !ok {
			t.Fatalf("not a statement: %s", line)
		}
		return &hostoom.Kill{Statement: s, Tasks: 1, Complete: true}
	}
	memcg := kill("Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0")
	memcg.Constraint = hostoom.ConstraintCgroup
	global := kill("Out of memory: Killed process 1234 (pt_data_worker) total-vm:10485760kB, anon-rss:8388608kB, file-rss:4kB, shmem-rss:1024kB, UID:1000 pgtables:16500kB oom_score_adj:0")

	ld := plog.NewLogs()
	for _, job := range []struct {
		svc   string
		kills []*hostoom.Kill
	}{{"trainer", []*hostoom.Kill{memcg, memcg}}, {"evaluator", []*hostoom.Kill{global}}} {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", job.svc)
		rl.Resource().Attributes().PutStr("host.name", "node-7")
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		for _, k := range job.kills {
			oomattr.PutHostKill(k, lrs.AppendEmpty().Attributes())
		}
		// A statement of a kill, not a kill.
		st := hostoom.Statement{Kind: hostoom.KernelUsage}
		oomattr.PutHostStatement(&st, lrs.AppendEmpty().Attributes())
	}
	bogus := ld.ResourceLogs().At(1).ScopeLogs().At(0).LogRecords().AppendEmpty().Attributes()
	oomattr.PutHostKill(global, bogus)
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
