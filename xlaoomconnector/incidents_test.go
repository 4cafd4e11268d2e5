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

func TestIncidentsUseTheProcessorsID(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	ld := multiHostLogs(4, clk.Now(), false)
	for i, rl := range ld.ResourceLogs().All() {
		lr := rl.ScopeLogs().At(0).LogRecords().At(0)
		lr.Attributes().PutStr(oomattr.ErrorCode, "E1000")
		lr.Attributes().PutStr(oomattr.Incident, fmt.Sprintf("id-%d", i%2)) // two incidents, as tagged upstream
	}
	got := consumeAndEmit(t, c, sink, ld)
	assert.Equal(t, map[string]int64{"trainer": 2}, incidentsBy(got))
}

func TestIncidentsExpireAndStayBounded(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	c, clk := newTestConnector(t, incidentConfig(), settings(), sink)
	consumeAndEmit(t, c, sink, multiHostLogs(2, clk.Now(), false))
	c.mu.Lock()
	assert.Len(t, c.state.incidents, 1)
	c.mu.Unlock()
	clk.Add(c.cfg.SeriesExpiry + time.Second)
	require.NoError(t, c.emit(context.Background()))
	c.mu.Lock()
	assert.Empty(t, c.state.incidents, "remembered incidents expire with series_expiry")
	for i := range maxIncidents + 10 {
		c.state.newIncident(fmt.Sprint(i), clk.Now())
	}
	assert.Len(t, c.state.incidents, maxIncidents)
	c.mu.Unlock()
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
