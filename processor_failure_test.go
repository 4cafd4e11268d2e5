// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/metadatatest"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector"
)

// The records of one failure of the real job shared_gpu_backoff_then_oom
// (oom/testdata/jobs), as the agent groups them.
const (
	jobAllocator = "W1126 11:16:43.148484     786 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 23.28GiB (rounded to 25000000000) from the lower end requested by op \n" +
		"If this is caused by memory fragmentation, the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' may improve the situation.\nCurrent allocation summary follows."
	jobChunk  = "I1126 11:16:43.148590     786 bfc_allocator.cc:1447] InUse at 302000200 of size 6414848 tag lower allocation_annotation xla.execute{executable=jit_step} next 3"
	jobStats  = "I1126 11:16:43.148614     786 bfc_allocator.cc:1508] Stats: \nLimit:                        59.38GiB\nInUse:                         6.62MiB\nLargestFreeBlock:             18.62GiB"
	jobRaised = "W1126 11:16:43.148619     786 bfc_allocator.cc:609] *______\nTraceback (most recent call last):\n" +
		"  File \"/app/train.py\", line 194, in run_job\n    big_output(1.0).block_until_ready()\n" +
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 23.28GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error=''] [executable_name='jit_activations']"
)

var jobT0 = time.Date(2026, 11, 26, 11, 16, 43, 0, time.UTC)

// hostBatch is a batch of host's records of job "trainer", read from its log file.
func hostBatch(host string, bodies ...string) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "trainer")
	rl.Resource().Attributes().PutStr("host.name", host)
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for i, b := range bodies {
		lr := lrs.AppendEmpty()
		lr.Body().SetStr(b)
		lr.SetTimestamp(pcommon.NewTimestampFromTime(jobT0.Add(time.Duration(i) * time.Millisecond)))
		lr.Attributes().PutStr("log.file.path", "/var/log/xla/trainer/job.log")
	}
	return ld
}

// pipeline is an agent's processor (started) feeding one connector.
type pipeline struct {
	t    *testing.T
	sink *consumertest.LogsSink
	proc processor.Logs
}

func newPipeline(t *testing.T) *pipeline {
	p := &pipeline{t: t, sink: new(consumertest.LogsSink)}
	proc, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), createDefaultConfig(), p.sink)
	require.NoError(t, err)
	require.NoError(t, proc.Start(context.Background(), componenttest.NewNopHost()))
	p.proc = proc
	return p
}

func (p *pipeline) send(ld plog.Logs) {
	require.NoError(p.t, p.proc.ConsumeLogs(context.Background(), ld))
}

func (p *pipeline) shutdown() {
	require.NoError(p.t, p.proc.Shutdown(context.Background()))
}

// failureRecords are the xla.oom.failure records that left the processors.
func (p *pipeline) failureRecords() []plog.LogRecord {
	var out []plog.LogRecord
	for _, ld := range p.sink.AllLogs() {
		out = append(out, p.failureRecordsOf(ld)...)
	}
	return out
}

// failureRecordsOf are ld's xla.oom.failure records.
func (*pipeline) failureRecordsOf(ld plog.Logs) []plog.LogRecord {
	var out []plog.LogRecord
	{
		for _, rl := range ld.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					if lr.EventName() == oomattr.EventFailure {
						out = append(out, lr)
					}
				}
			}
		}
	}
	return out
}

// incidents runs everything that left the processors through one connector
// and returns its xla.oom.incidents by job.
func (p *pipeline) incidents() map[string]int64 {
	sink := new(consumertest.MetricsSink)
	f := xlaoomconnector.NewFactory()
	c, err := f.CreateLogsToMetrics(context.Background(), connectortest.NewNopSettings(f.Type()), f.CreateDefaultConfig(), sink)
	require.NoError(p.t, err)
	require.NoError(p.t, c.Start(context.Background(), componenttest.NewNopHost()))
	for _, ld := range p.sink.AllLogs() {
		require.NoError(p.t, c.ConsumeLogs(context.Background(), ld))
	}
	require.NoError(p.t, c.Shutdown(context.Background()))
	return incidentsByJob(sink.AllMetrics())
}

func str(lr plog.LogRecord, k string) string {
	if v, ok := lr.Attributes().Get(k); ok {
		return v.AsString()
	}
	return ""
}

// A failure split across batches: one failure record, in the batch of its
// raised status, with the facts of every batch; one incident.
func TestFailureSplitAcrossBatches(t *testing.T) {
	p := newPipeline(t)
	p.send(hostBatch("h0", jobAllocator))
	p.send(hostBatch("h0", jobChunk, jobStats))
	assert.Empty(t, p.failureRecords(), "open until its raised status")
	p.send(hostBatch("h0", jobRaised))
	fs := p.failureRecords()
	require.Len(t, fs, 1)
	f := fs[0]
	assert.Equal(t, "raised", str(f, oomattr.FailureClosed))
	assert.Equal(t, "25000000000", str(f, oomattr.Requested))
	assert.Equal(t, "jit_activations", str(f, oomattr.Program))
	assert.Equal(t, "jit_step", str(f, oomattr.HolderProgram))
	assert.Equal(t, "/app/train.py", str(f, oomattr.CodeFilePath))
	assert.Equal(t, "194", str(f, oomattr.CodeLineNumber))
	assert.Equal(t, "run_job", str(f, oomattr.CodeFunctionName))
	assert.Equal(t, "/var/log/xla/trainer/job.log", str(f, "log.file.path"))
	assert.Equal(t, "2", str(f, oomattr.FailureStatements))
	assert.Equal(t, "4", str(f, oomattr.FailureRecords))
	p.shutdown()
	assert.Len(t, p.failureRecords(), 1, "nothing more at shutdown")
	assert.Equal(t, map[string]int64{"trainer/": 1}, p.incidents())
}

// A failure printed by 64 hosts: 64 failure records sharing one incident
// id, one incident.
func TestFailureOnManyHosts(t *testing.T) {
	p := newPipeline(t)
	ld := plog.NewLogs()
	for h := range 64 {
		hostBatch(string(rune('a'+h%26))+string(rune('a'+h/26)), jobAllocator, jobRaised).ResourceLogs().MoveAndAppendTo(ld.ResourceLogs())
	}
	p.send(ld)
	p.shutdown()
	fs := p.failureRecords()
	require.Len(t, fs, 64)
	ids, incidents := map[string]bool{}, map[string]bool{}
	for _, f := range fs {
		ids[str(f, oomattr.FailureID)] = true
		incidents[str(f, oomattr.Incident)] = true
		assert.Empty(t, str(f, oomattr.EarlierFailures), "hosts of one attempt repeat none of each other")
	}
	assert.Len(t, ids, 64, "one failure per stream")
	assert.Len(t, incidents, 1, "one incident")
	assert.Equal(t, map[string]int64{"trainer/": 1}, p.incidents())
}

// A failure open at shutdown is closed and sent then; the quiet interval
// closes one on the ticker's clock.
func TestFailureOpenAtShutdownAndQuiet(t *testing.T) {
	p := newPipeline(t)
	p.send(hostBatch("h0", jobAllocator, jobStats))
	p.shutdown()
	fs := p.failureRecords()
	require.Len(t, fs, 1)
	assert.Equal(t, "flush", str(fs[0], oomattr.FailureClosed))
	assert.Equal(t, map[string]int64{"trainer/": 1}, p.incidents())

	// The quiet interval, on the processor's own clock (its ticker calls expire).
	tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
	require.NoError(t, err)
	sink := new(consumertest.LogsSink)
	proc := newLogsProcessor(createDefaultConfig(), nil, tb, sink)
	proc.finder = newTestProcessor(createDefaultConfig(), tb).finder
	now := jobT0
	proc.now = func() time.Time { return now }
	_, err = proc.processLogs(context.Background(), hostBatch("h0", jobAllocator))
	require.NoError(t, err)
	now = now.Add(4 * time.Second)
	require.NoError(t, proc.send(context.Background(), proc.assembler.Expire(now, nil)))
	assert.Zero(t, sink.LogRecordCount(), "not quiet yet")
	now = now.Add(2 * time.Second)
	require.NoError(t, proc.send(context.Background(), proc.assembler.Expire(now, nil)))
	require.Equal(t, 1, sink.LogRecordCount())
	assert.Equal(t, "quiet", str(sink.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0), oomattr.FailureClosed))
}

// An agent killed mid-failure: its statements left, naming a failure that
// never gets its record; the restarted agent reads the rest (the raised
// status) and makes the failure record. One incident, nothing counted twice;
// what the first agent had read of the failure is lost from the record.
func TestFailureAgentKilledMidFailure(t *testing.T) {
	p := newPipeline(t)
	// The agent that is killed: its batch leaves, then nothing more (no
	// ticker, no shutdown).
	tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
	require.NoError(t, err)
	killed := newTestProcessor(createDefaultConfig(), tb)
	out, err := killed.processLogs(context.Background(), hostBatch("h0", jobAllocator, jobStats))
	require.NoError(t, err)
	require.NoError(t, p.sink.ConsumeLogs(context.Background(), out))
	// The restarted agent resumes at the checkpoint.
	p.send(hostBatch("h0", jobRaised))
	p.shutdown()
	fs := p.failureRecords()
	require.Len(t, fs, 1)
	assert.Equal(t, "1", str(fs[0], oomattr.FailureStatements), "the raised status alone")
	assert.Empty(t, str(fs[0], oomattr.InUse), "the Stats read before the kill are lost")
	assert.Equal(t, map[string]int64{"trainer/": 1}, p.incidents())
}

// A program that caught its own OOM and went on printing (a batch-size
// search): its statement keeps its tags and names the failure, but the
// failure closes as went_on, with no failure record and no incident; the
// processor's telemetry counts it by that reason.
func TestFailureCaughtAndWentOn(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	sink := new(consumertest.LogsSink)
	proc, err := NewFactory().CreateLogs(context.Background(), metadatatest.NewSettings(tel), createDefaultConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, proc.Start(context.Background(), componenttest.NewNopHost()))
	ld := hostBatch("h0", jobAllocator, jobStats,
		"[job] batch of 400000 rows does not fit; halving", "[job] batch of 200000 rows fits", "[job] step 0 loss 0.0000")
	require.NoError(t, proc.ConsumeLogs(context.Background(), ld))
	require.NoError(t, proc.Shutdown(context.Background()))

	p := &pipeline{t: t, sink: sink}
	assert.Empty(t, p.failureRecords())
	assert.Empty(t, p.incidents())
	statement := sink.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
	assert.Equal(t, "E0007", str(statement, oomattr.ErrorCode))
	assert.NotEmpty(t, str(statement, oomattr.FailureID))
	metadatatest.AssertEqualProcessorXlaOomFailures(t, tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(attribute.String(oomattr.FailureClosed, "went_on"))},
	}, metricdatatest.IgnoreTimestamp())
}

// undated strips the records' times, as a receiver that reads none leaves them.
func undated(ld plog.Logs) plog.Logs {
	for _, rl := range ld.ResourceLogs().All() {
		for _, lr := range rl.ScopeLogs().At(0).LogRecords().All() {
			lr.SetTimestamp(0)
		}
	}
	return ld
}

// One failure whose undated records arrive across a minute's edge, on one
// host and on two: every record of it, statements and failure records,
// carries one xla.oom.incident.id.
func TestFailureIncidentAcrossBucketEdge(t *testing.T) {
	edge := time.Date(2026, 11, 26, 11, 17, 0, 0, time.UTC)
	for _, hosts := range [][]string{{"h0"}, {"h0", "h1"}} {
		tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
		require.NoError(t, err)
		sink := new(consumertest.LogsSink)
		p := newLogsProcessor(createDefaultConfig(), oomrecord.NewFinder(createDefaultConfig().Sources), tb, sink)
		ids := map[string]bool{}
		send := func(at time.Time, ld plog.Logs) {
			p.now = func() time.Time { return at }
			out, err := p.processLogs(context.Background(), undated(ld))
			require.NoError(t, err)
			for _, rl := range out.ResourceLogs().All() {
				for _, lr := range rl.ScopeLogs().At(0).LogRecords().All() {
					if id := str(lr, oomattr.Incident); id != "" {
						ids[id] = true
					}
				}
			}
		}
		for i, h := range hosts {
			send(edge.Add(time.Duration(2*i-1)*time.Second), hostBatch(h, jobAllocator, jobStats))
		}
		for _, h := range hosts {
			send(edge.Add(3*time.Second), hostBatch(h, jobChunk, jobRaised))
		}
		require.NoError(t, p.shutdown(context.Background()))
		assert.Len(t, ids, 1, "hosts %v: %v", hosts, ids)
	}
}
