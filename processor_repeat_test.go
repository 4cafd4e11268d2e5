// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"bufio"
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// podAttempt is one attempt of a Kubernetes Job: its pod on its node, the
// real job log it printed, shifted in time by offset.
type podAttempt struct {
	pod, node string
	offset    time.Duration
}

const repeatLog = "oom/testdata/jobs/autotune_in_training_step.log" // fails the same way on every run

// batch is the attempt's log as the agent sends it: records grouped by
// their headers, dated by them, in the pod's resource.
func (a podAttempt) batch(t *testing.T) plog.Logs {
	t.Helper()
	f, err := os.Open(repeatLog)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	res := rl.Resource().Attributes()
	res.PutStr("k8s.namespace.name", "ml")
	res.PutStr("k8s.job.name", "train")
	res.PutStr("k8s.pod.name", a.pod)
	res.PutStr("k8s.node.name", a.node)
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	var at time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !oom.StartsRecord(line) && lrs.Len() > 0 {
			lr := lrs.At(lrs.Len() - 1)
			lr.Body().SetStr(lr.Body().Str() + "\n" + line)
			continue
		}
		if h, ok := oom.HeaderTime(line); ok {
			at = h.Add(a.offset)
		}
		lr := lrs.AppendEmpty()
		lr.Body().SetStr(line)
		lr.SetTimestamp(pcommon.NewTimestampFromTime(at))
	}
	require.NoError(t, sc.Err())
	return ld
}

// failures runs the attempts through one processor, as the gateway that
// receives a job's records (docs/incidents.md, "Repeats"), and returns its
// failure records in order.
func failures(t *testing.T, cfg *Config, attempts ...podAttempt) []plog.LogRecord {
	sink := new(consumertest.LogsSink)
	proc, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, proc.Start(context.Background(), componenttest.NewNopHost()))
	for _, a := range attempts {
		require.NoError(t, proc.ConsumeLogs(context.Background(), a.batch(t)))
	}
	require.NoError(t, proc.Shutdown(context.Background()))
	p := &pipeline{t: t, sink: sink}
	return p.failureRecords()
}

// TestRepeatOfAKubernetesJob: the same failing job log as two attempts of
// one Kubernetes Job on two nodes: the second failure is futile by the
// repeat rule, the first is as it was alone.
func TestRepeatOfAKubernetesJob(t *testing.T) {
	first := podAttempt{pod: "train-0-abcde", node: "gpu-node-1"}
	second := podAttempt{pod: "train-0-fghij", node: "gpu-node-2", offset: 10 * time.Minute}
	alone := failures(t, createDefaultConfig(), first)
	require.Len(t, alone, 1)
	fs := failures(t, createDefaultConfig(), first, second)
	require.Len(t, fs, 2)
	assert.Equal(t, alone[0].Attributes().AsRaw(), fs[0].Attributes().AsRaw(), "the first attempt as it was alone")
	assert.Equal(t, oom.RetryFutile, str(fs[1], oomattr.Retry))
	assert.Equal(t, "repeat", str(fs[1], oomattr.RetryRule))
	assert.Equal(t, "1", str(fs[1], oomattr.EarlierFailures))

	off := createDefaultConfig()
	off.Repeats.Enabled = false
	fs = failures(t, off, first, second)
	require.Len(t, fs, 2)
	assert.NotEqual(t, "repeat", str(fs[1], oomattr.RetryRule), "the setting turns the rule off")
	assert.Empty(t, str(fs[1], oomattr.EarlierFailures))
}

// TestRepeatAtTheGateway: as deployed on Kubernetes (docs/deployment.md),
// each attempt's node agent assembles its failure, and load_balancing
// routes every record of the job to one gateway: the gateway makes the
// second attempt's failure record futile by the repeat rule, leaves the
// first as its agent sent it, and takes a copy delivered twice once.
func TestRepeatAtTheGateway(t *testing.T) {
	first := podAttempt{pod: "train-0-abcde", node: "gpu-node-1"}
	second := podAttempt{pod: "train-0-fghij", node: "gpu-node-2", offset: 10 * time.Minute}
	agent := func(a podAttempt) plog.Logs {
		sink := new(consumertest.LogsSink)
		proc, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), createDefaultConfig(), sink)
		require.NoError(t, err)
		require.NoError(t, proc.Start(context.Background(), componenttest.NewNopHost()))
		require.NoError(t, proc.ConsumeLogs(context.Background(), a.batch(t)))
		require.NoError(t, proc.Shutdown(context.Background()))
		out := plog.NewLogs()
		for _, ld := range sink.AllLogs() {
			ld.ResourceLogs().MoveAndAppendTo(out.ResourceLogs())
		}
		return out
	}
	fromFirst, fromSecond := agent(first), agent(second)
	sent := (&pipeline{t: t, sink: &consumertest.LogsSink{}}).failureRecordsOf(fromFirst)
	require.Len(t, sent, 1)
	before := sent[0].Attributes().AsRaw()

	sink := new(consumertest.LogsSink)
	gw, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), createDefaultConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, gw.Start(context.Background(), componenttest.NewNopHost()))
	again := plog.NewLogs()
	fromFirst.CopyTo(again)
	for _, ld := range []plog.Logs{fromFirst, again, fromSecond} {
		require.NoError(t, gw.ConsumeLogs(context.Background(), ld))
	}
	require.NoError(t, gw.Shutdown(context.Background()))
	fs := (&pipeline{t: t, sink: sink}).failureRecords()
	require.Len(t, fs, 3)
	assert.Equal(t, before, fs[0].Attributes().AsRaw(), "the first attempt as its agent sent it")
	assert.Equal(t, before, fs[1].Attributes().AsRaw(), "its copy delivered again is no repeat")
	assert.Equal(t, oom.RetryFutile, str(fs[2], oomattr.Retry))
	assert.Equal(t, "repeat", str(fs[2], oomattr.RetryRule))
	assert.Equal(t, "1", str(fs[2], oomattr.EarlierFailures))
	assert.Contains(t, fs[2].Body().Str(), "; retry futile (repeat)")
}
