// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

const replicatedOOM = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.: while running replica %d and partition %d of a replicated computation (other replicas may have failed as well)."

// multiHostLogs is one failure logged by hosts hosts of job "trainer", each
// a second apart, plus (when other) a second failure of the same job an hour
// later and one of another job at the same time.
func multiHostLogs(hosts int, base time.Time, other bool) plog.Logs {
	ld := plog.NewLogs()
	add := func(service, host string, at time.Time, body string) {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", service)
		rl.Resource().Attributes().PutStr("host.name", host)
		rl.Resource().Attributes().PutStr("k8s.pod.name", host+"-pod")
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(at))
		lr.Body().SetStr(body)
	}
	// ten seconds into a minute, so the copies stay inside one window
	start := base.Truncate(time.Minute).Add(10 * time.Second)
	for h := range hosts {
		add("trainer", fmt.Sprintf("tpu-host-%02d", h), start.Add(time.Duration(h%30)*time.Second), fmt.Sprintf(replicatedOOM, h, h))
	}
	if other {
		add("trainer", "tpu-host-00", start.Add(time.Hour), fmt.Sprintf(replicatedOOM, 0, 0))
		add("evaluator", "tpu-host-99", start, fmt.Sprintf(replicatedOOM, 0, 0))
	}
	return ld
}

func incidentConfig() *Config {
	cfg := createDefaultConfig()
	cfg.Metrics.XlaOomIncidents.Enabled = true
	return cfg
}

// incidentsBy returns xla.oom.incidents per service.name.
func incidentsBy(md pmetric.Metrics) map[string]int64 {
	out := map[string]int64{}
	for _, rm := range md.ResourceMetrics().All() {
		svc, _ := rm.Resource().Attributes().Get("service.name")
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				if m.Name() != "xla.oom.incidents" {
					continue
				}
				for _, dp := range m.Sum().DataPoints().All() {
					out[svc.Str()] += dp.IntValue()
				}
			}
		}
	}
	return out
}

func TestIncidentsOneFailureOn64HostsCountsOnce(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	got := consumeAndEmit(t, c, sink, multiHostLogs(64, clk.Now(), true))
	assert.Equal(t, map[string]int64{"trainer": 2, "evaluator": 1}, incidentsBy(got))
	assert.Equal(t, int64(66), sumErrors(got), "every copy still counts in xla.oom.errors")

	// The same copies again (a retry, a second agent): no new incident.
	got = consumeAndEmit(t, c, sink, multiHostLogs(64, clk.Now(), true))
	assert.Equal(t, map[string]int64{"trainer": 2, "evaluator": 1}, incidentsBy(got), "cumulative and unchanged")
}

func TestGoldenIncidents(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	got := consumeAndEmit(t, c, sink, multiHostLogs(3, clk.Now(), true))
	compareGolden(t, got, "incidents", "multi_host.yaml")
}

// The lines one GPU failure logs, as three records per host: the BFC
// allocator's warning (a rounded size), the runtime's status line (the exact
// request) and the Python exception.
const (
	bfcLine    = "W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.38GiB (rounded to 1477187584)requested by op "
	statusLine = "E0314 21:29:02.854727  957629 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1477187472 bytes."
	pythonLine = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1477187472 bytes."
)

// TestIncidentsOneFailureManyLines: every line of one failure on every host
// of a job, tagged by the processor with the ids it computes (which differ
// between the rounded and the exact size), is one incident; and a burst that
// straddles a minute boundary is not split.
func TestIncidentsOneFailureManyLines(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	ld := plog.NewLogs()
	start := clk.Now().Truncate(time.Minute).Add(50 * time.Second) // the burst crosses a minute boundary
	for h := range 4 {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "trainer")
		rl.Resource().Attributes().PutStr("host.name", fmt.Sprintf("gpu-host-%d", h))
		for i, line := range []string{bfcLine, statusLine, pythonLine} {
			lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
			lr.SetTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(h*5+i) * time.Second)))
			found := c.finder.Find(withBody(lr, line), false)
			require.Equal(t, oom.FoundReport, found.Found, line)
			oomattr.Put(found.Report, lr.Attributes())
			lr.Attributes().PutStr(oomattr.Incident, fmt.Sprintf("processor-id-%d", i))
		}
	}
	got := consumeAndEmit(t, c, sink, ld)
	assert.Equal(t, map[string]int64{"trainer": 1}, incidentsBy(got))
	assert.Equal(t, int64(12), sumErrors(got), "xla.oom.errors counts every tagged record")
}

func withBody(lr plog.LogRecord, body string) plog.LogRecord {
	lr.Body().SetStr(body)
	return lr
}

// TestIncidentsSeparatedByAQuietGap: records of one job more than
// incident_window apart are two incidents, however the batch orders them;
// records closer than that chain into one.
func TestIncidentsSeparatedByAQuietGap(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "trainer")
	base := clk.Now()
	for _, at := range []time.Duration{0, 3 * time.Minute, 40 * time.Second, 80 * time.Second} {
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(base.Add(at)))
		lr.Body().SetStr(pythonLine)
	}
	// 0s, 40s, 80s chain (gaps under a minute); 3m is a second incident.
	assert.Equal(t, map[string]int64{"trainer": 2}, incidentsBy(consumeAndEmit(t, c, sink, ld)))
}

func TestIncidentsExpireAndStayBounded(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	consumeAndEmit(t, c, sink, multiHostLogs(2, clk.Now(), false))
	c.mu.Lock()
	assert.Equal(t, 1, c.state.incidents.open.Len())
	c.mu.Unlock()
	clk.Add(c.cfg.SeriesExpiry + time.Second)
	require.NoError(t, c.emit(context.Background()))
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Zero(t, c.state.incidents.open.Len(), "remembered incidents expire with series_expiry")
	for i := range maxIncidents + 10 {
		c.state.incidents.observe(resourceKey(fmt.Sprint(i)), 0, clk.Now())
	}
	assert.Equal(t, maxIncidents, c.state.incidents.open.Len())
	_, seen := c.state.incidents.open.Get("9")
	assert.False(t, seen, "the oldest are forgotten first")
	_, seen = c.state.incidents.open.Get(resourceKey(fmt.Sprint(maxIncidents + 9)))
	assert.True(t, seen)
}

func TestIncidentsOnByDefaultAndCanBeTurnedOff(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, createDefaultConfig(), settings(), sink)
	got := consumeAndEmit(t, c, sink, multiHostLogs(3, clk.Now(), false))
	assert.NotEmpty(t, incidentsBy(got))

	cfg := createDefaultConfig()
	cfg.Metrics.XlaOomIncidents.Enabled = false
	sink = new(consumertest.MetricsSink)
	c, clk = newTestConnector(t, cfg, settings(), sink)
	got = consumeAndEmit(t, c, sink, multiHostLogs(3, clk.Now(), false))
	assert.Empty(t, incidentsBy(got))
}

func TestIncidentConfigValidation(t *testing.T) {
	cfg := incidentConfig()
	cfg.IncidentWindow = 0
	cfg.IncidentResourceAttributes = []string{"service.name", "", "service.name"}
	err := cfg.Validate()
	assert.ErrorContains(t, err, "incident_window: must be positive")
	assert.ErrorContains(t, err, "incident_resource_attributes[1]: must not be empty")
	assert.ErrorContains(t, err, `incident_resource_attributes[2]: "service.name" is listed twice`)
}

// BenchmarkDistinctIncidents feeds one batch of n distinct incidents (n jobs,
// one record each) and reports the time per incident, which should not grow
// with n: go test -bench DistinctIncidents -run '^$' ./xlaoomconnector
func BenchmarkDistinctIncidents(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ld := plog.NewLogs()
			at := pcommon.NewTimestampFromTime(time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC))
			for i := range n {
				rl := ld.ResourceLogs().AppendEmpty()
				rl.Resource().Attributes().PutStr("service.name", fmt.Sprint("job-", i))
				lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
				lr.SetTimestamp(at)
				lr.Attributes().PutStr(oomattr.ErrorCode, "E0100")
			}
			ld.MarkReadOnly()
			cfg := incidentConfig()
			cfg.Metrics.XlaOomErrors.Enabled = false // the incidents alone
			cfg.SeriesLimit = 2 * n
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				c, err := NewFactory().CreateLogsToMetrics(context.Background(), settings(), cfg, new(consumertest.MetricsSink))
				require.NoError(b, err)
				b.StartTimer()
				require.NoError(b, c.ConsumeLogs(context.Background(), ld))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/incident")
		})
	}
}

// BenchmarkIncidentMemory files one new incident per op, the jobs taken in
// turn from a set of n: below maxIncidents every job stays remembered, above
// it every op also forgets the oldest job and creates an entry. The time per
// incident stays within about a microsecond at every size (the larger sizes
// pay for cache misses and, past the bound, the entry they create), where a
// memory that scanned its 10,000 entries per incident would take tens of
// microseconds.
// go test -bench IncidentMemory -run '^$' ./xlaoomconnector
func BenchmarkIncidentMemory(b *testing.B) {
	now := time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC)
	start := pcommon.NewTimestampFromTime(now)
	const window = time.Minute
	for _, n := range []int{maxIncidents / 10, maxIncidents, 2 * maxIncidents} {
		b.Run(fmt.Sprint("jobs=", n), func(b *testing.B) {
			jobs := make([]resourceKey, n)
			for i := range jobs {
				jobs[i] = resourceKey(fmt.Sprint("job-", i))
			}
			m := newIncidentMemory(window, 15*time.Minute)
			i := 0
			for b.Loop() {
				// Two windows after the job's previous record: a new incident.
				at := start + pcommon.Timestamp(2*window)*pcommon.Timestamp(i)
				if !m.observe(jobs[i%n], at, now) {
					b.Fatal("records two windows apart must open a new incident")
				}
				i++
			}
			if want := min(i, n, maxIncidents); m.open.Len() != want {
				b.Fatalf("remembered %d jobs, want %d", m.open.Len(), want)
			}
		})
	}
}
