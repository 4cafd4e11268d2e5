// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package bench

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
)

// TestContenders checks that the contenders do the work being timed: both
// processors tag exactly the one OOM record of each mixed batch and touch no
// ordinary record, and a pool restores what they modified.
func TestContenders(t *testing.T) {
	mixed, ordinary := traffic()
	for name, build := range map[string]func(testing.TB) func(plog.Logs){
		"xla_oom":        func(tb testing.TB) func(plog.Logs) { return consume(newXLAOOM(tb, consumertest.NewNop())) },
		"transform_peer": func(tb testing.TB) func(plog.Logs) { return consume(newPeer(tb, consumertest.NewNop())) },
	} {
		t.Run(name, func(t *testing.T) {
			process := build(t)
			if n := workload.NewPool(mixed).Track(process); n != len(mixed) {
				t.Errorf("modified %d records of %d mixed batches, want one per batch", n, len(mixed))
			}
			if n := workload.NewPool(ordinary).Track(process); n != 0 {
				t.Errorf("modified %d ordinary records", n)
			}
			pool := workload.NewPool(mixed)
			pool.Track(process)
			for i := 0; i < pool.Len(); i++ {
				process(pool.At(i))
				code := ""
				eachRecord(pool.At(i), func(lr plog.LogRecord) {
					if v, ok := lr.Attributes().Get("xla.error.code"); ok {
						code = v.Str()
					}
				})
				if code == "" {
					t.Fatalf("batch %d: no record carries xla.error.code", i)
				}
			}
			pool.Restore()
			for i := 0; i < pool.Len(); i++ {
				if !workload.Equal(pool.At(i), mixed[i]) {
					t.Fatalf("batch %d not restored", i)
				}
			}
		})
	}

	// The peer runs its statements in full on an OOM record: the E0100
	// sample of §4.2 gets the sizes the document lists.
	t.Run("peer_statements", func(t *testing.T) {
		sink := new(consumertest.LogsSink)
		p := newPeer(t, sink)
		ld := plog.NewLogs()
		lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		for _, m := range workload.OOMMessages {
			if m.Family == "tpu-buffer-E0100" {
				lr.Body().SetStr(m.Text)
			}
		}
		if err := p.ConsumeLogs(context.Background(), ld); err != nil {
			t.Fatal(err)
		}
		attrs := sink.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes()
		for key, want := range map[string]int64{"xla.oom.requested.size": 8388608, "xla.oom.free.size": 6742343} {
			if v, ok := attrs.Get(key); !ok || v.Int() != want {
				t.Errorf("%s = %v, want %d (all: %v)", key, v.AsRaw(), want, attrs.AsRaw())
			}
		}
		if v, _ := attrs.Get("xla.error.code"); v.Str() != "E0100" {
			t.Errorf("xla.error.code = %q", v.Str())
		}
	})

	t.Run("connector", func(t *testing.T) {
		c := newConnector(t)
		p := newXLAOOM(t, c)
		for _, ld := range mixed[:4] {
			cp := plog.NewLogs()
			ld.CopyTo(cp)
			if err := p.ConsumeLogs(context.Background(), cp); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func eachRecord(ld plog.Logs, f func(plog.LogRecord)) {
	for i := 0; i < ld.ResourceLogs().Len(); i++ {
		sls := ld.ResourceLogs().At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				f(lrs.At(k))
			}
		}
	}
}
