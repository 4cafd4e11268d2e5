// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// What the processor sends of one failure of job "trainer" on a host: its
// statements, each naming the failure, and its failure record.
type sent struct {
	host       string
	at         time.Time
	statements int
	record     bool // the failure record
	named      bool // the statements carry xla.oom.failure.id
	retry      string
}

func processorLogs(out ...sent) plog.Logs {
	ld := plog.NewLogs()
	for _, s := range out {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "trainer")
		rl.Resource().Attributes().PutStr("host.name", s.host)
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		r := oom.Report{Code: "E0007", Phase: oom.PhaseRuntime, Requested: oom.KnownSize(1 << 30), Retry: s.retry}
		id := fmt.Sprintf("failure-%s", s.host)
		for range s.statements {
			lr := lrs.AppendEmpty()
			lr.SetTimestamp(pcommon.NewTimestampFromTime(s.at))
			oomattr.Put(r, lr.Attributes())
			lr.SetEventName(oomattr.EventStatement)
			if s.named {
				lr.Attributes().PutStr(oomattr.FailureID, id)
			}
		}
		if s.record {
			lr := lrs.AppendEmpty()
			lr.SetTimestamp(pcommon.NewTimestampFromTime(s.at))
			oomattr.Put(r, lr.Attributes())
			lr.SetEventName(oomattr.EventFailure)
			lr.Attributes().PutStr(oomattr.FailureID, id)
		}
	}
	return ld
}

// The connector counts an incident from failure records, once however the
// records are batched, split or repeated by several hosts, and falls back to
// statements that name no failure.
func TestIncidentsFromFailureRecords(t *testing.T) {
	t0 := time.Date(2025, 11, 22, 10, 4, 10, 0, time.UTC)
	for _, c := range []struct {
		name    string
		batches []plog.Logs
		want    int64
		errors  int64 // xla.oom.errors: the statements
	}{
		{"statements and the record in one batch", []plog.Logs{processorLogs(sent{"h0", t0, 3, true, true, oom.RetryFutile})}, 1, 3},
		{"the record in a later batch", []plog.Logs{
			processorLogs(sent{"h0", t0, 3, false, true, oom.RetryFutile}),
			processorLogs(sent{"h0", t0, 0, true, true, oom.RetryFutile}),
		}, 1, 3},
		{"64 hosts", []plog.Logs{processorLogs(func() []sent {
			var out []sent
			for h := range 64 {
				out = append(out, sent{fmt.Sprintf("h%02d", h), t0.Add(time.Duration(h%20) * time.Second), 2, true, true, oom.RetryFutile})
			}
			return out
		}()...)}, 1, 128},
		{"the record delivered twice", []plog.Logs{
			processorLogs(sent{"h0", t0, 1, true, true, oom.RetryFutile}),
			processorLogs(sent{"h0", t0, 0, true, true, oom.RetryFutile}),
		}, 1, 1},
		{"statements whose record never came (a crash)", []plog.Logs{processorLogs(sent{"h0", t0, 2, false, true, oom.RetryFutile})}, 0, 2},
		{"a sender that makes no failure record", []plog.Logs{processorLogs(sent{"h0", t0, 2, false, false, oom.RetryFutile})}, 1, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink := new(consumertest.MetricsSink)
			conn, _ := newTestConnector(t, incidentConfig(), settings(), sink)
			got := consumeAndEmit(t, conn, sink, c.batches...)
			assert.Equal(t, c.want, incidentsBy(got)["trainer"], "incidents")
			assert.Equal(t, c.errors, sumErrors(got), "statements counted as errors; failure records not")
		})
	}
}
