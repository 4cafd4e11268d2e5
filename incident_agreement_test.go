// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector"
)

// The lines one GPU failure logs on each host: the BFC allocator's warning
// (E0007, a rounded size), the runtime's status line (E0100, the exact
// request) and the Python exception.
var gpuFailureLines = []string{
	"W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.38GiB (rounded to 1477187584)requested by op ",
	"E0314 21:29:02.854727  957629 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1477187472 bytes.",
	"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1477187472 bytes.",
}

// failure is one OOM of a job, logged by each of its hosts.
type jobFailure struct {
	job       string        // the service.name, or service.name/k8s.namespace.name
	namespace string        // k8s.namespace.name
	at        time.Duration // after the start of a bucket: the first line of the first host
	straddles bool          // the burst crosses a bucket edge
}

// TestIncidentIDsAgreeWithIncidentCount runs every host's records through a
// processor of its own (each node's agent tags its own copy), then all of
// them through one connector, and compares the distinct xla.oom.incident.id
// values with xla.oom.incidents. They agree on every failure whose burst
// stays within one incident_window bucket; a burst that straddles a bucket
// edge is one incident with two ids.
func TestIncidentIDsAgreeWithIncidentCount(t *testing.T) {
	const hosts = 4
	// Each host logs its three lines a second apart, each host two seconds
	// after the previous one: a burst lasts 9 seconds.
	failures := []jobFailure{
		{job: "trainer", namespace: "ml", at: 5 * time.Second},
		{job: "evaluator", namespace: "ml", at: 5 * time.Second}, // another job, same moment
		{job: "trainer", namespace: "staging", at: 5 * time.Second},
		{job: "trainer", namespace: "ml", at: 10*time.Minute + 20*time.Second},                  // the job fails again
		{job: "trainer", namespace: "ml", at: 25*time.Minute + 55*time.Second, straddles: true}, // 25:55 to 26:03
		{job: "evaluator", namespace: "ml", at: 40*time.Minute + 30*time.Second},
	}
	base := time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC)

	// The processor: one instance per host, as on a fleet of agents.
	idsOf := map[int]map[string]bool{} // failure index -> the ids on its records
	jobOf := map[string]string{}       // id -> the job it was seen on
	var tagged []plog.Logs
	for h := range hosts {
		out := run(t, createDefaultConfig(), processortest.NewNopSettings(metadata.Type), hostLogs(failures, base, h))
		tagged = append(tagged, out)
		for _, rl := range out.ResourceLogs().All() {
			fi := failureIndex(rl.Resource())
			job := jobName(failures[fi])
			for _, lr := range rl.ScopeLogs().At(0).LogRecords().All() {
				id, ok := lr.Attributes().Get(oomattr.Incident)
				require.True(t, ok, "every line of a failure is tagged: %s", lr.Body().Str())
				if idsOf[fi] == nil {
					idsOf[fi] = map[string]bool{}
				}
				idsOf[fi][id.Str()] = true
				if seen, ok := jobOf[id.Str()]; ok {
					require.Equal(t, seen, job, "two jobs share incident id %s", id.Str())
				}
				jobOf[id.Str()] = job
			}
		}
	}

	// The connector, downstream of every agent.
	sink := new(consumertest.MetricsSink)
	f := xlaoomconnector.NewFactory()
	c, err := f.CreateLogsToMetrics(context.Background(), connectortest.NewNopSettings(f.Type()), f.CreateDefaultConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background(), componenttest.NewNopHost()))
	for _, ld := range tagged {
		require.NoError(t, c.ConsumeLogs(context.Background(), ld))
	}
	require.NoError(t, c.Shutdown(context.Background())) // emits what it holds
	incidents := incidentsByJob(sink.AllMetrics())

	idsByJob := map[string]int{}
	straddling := 0
	for fi, ids := range idsOf {
		if failures[fi].straddles {
			assert.Len(t, ids, 2, "a burst across a bucket edge: two ids")
			straddling++
		} else {
			assert.Len(t, ids, 1, "every host's copy and every line of one failure: one id")
		}
		idsByJob[jobName(failures[fi])] += len(ids)
	}
	assert.Equal(t, map[string]int64{"trainer/ml": 3, "evaluator/ml": 2, "trainer/staging": 1}, incidents)
	var total int64
	for job, n := range incidents {
		total += n
		want := n
		if job == "trainer/ml" {
			want++ // its straddling burst
		}
		assert.EqualValues(t, want, idsByJob[job], "ids of %s", job)
	}
	assert.Len(t, jobOf, int(total)+straddling, "distinct ids = xla.oom.incidents + bursts across a bucket edge")
	assert.Equal(t, 1, straddling)
}

func jobName(f jobFailure) string { return f.job + "/" + f.namespace }

// hostLogs is what host h logs of every failure: one resource per failure,
// marked with the failure's index so the test can tell them apart.
func hostLogs(failures []jobFailure, base time.Time, h int) plog.Logs {
	ld := plog.NewLogs()
	for fi, f := range failures {
		rl := ld.ResourceLogs().AppendEmpty()
		res := rl.Resource().Attributes()
		res.PutStr("service.name", f.job)
		res.PutStr("k8s.namespace.name", f.namespace)
		res.PutStr("host.name", fmt.Sprintf("%s-host-%d", f.job, h))
		res.PutStr("k8s.pod.name", fmt.Sprintf("%s-%d-%d", f.job, fi, h))
		res.PutInt("test.failure", int64(fi)) // not an incident attribute
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		for i, line := range gpuFailureLines {
			lr := lrs.AppendEmpty()
			lr.SetTimestamp(pcommon.NewTimestampFromTime(base.Add(f.at + time.Duration(2*h+i)*time.Second)))
			lr.Body().SetStr(line)
		}
	}
	return ld
}

func failureIndex(res pcommon.Resource) int {
	v, _ := res.Attributes().Get("test.failure")
	return int(v.Int())
}

// incidentsByJob sums the xla.oom.incidents points per job resource.
func incidentsByJob(mds []pmetric.Metrics) map[string]int64 {
	out := map[string]int64{}
	for _, md := range mds {
		for _, rm := range md.ResourceMetrics().All() {
			res := rm.Resource().Attributes()
			svc, _ := res.Get("service.name")
			ns, _ := res.Get("k8s.namespace.name")
			for _, sm := range rm.ScopeMetrics().All() {
				for _, m := range sm.Metrics().All() {
					if m.Name() != "xla.oom.incidents" {
						continue
					}
					for _, dp := range m.Sum().DataPoints().All() {
						out[svc.Str()+"/"+ns.Str()] += dp.IntValue()
					}
				}
			}
		}
	}
	return out
}
