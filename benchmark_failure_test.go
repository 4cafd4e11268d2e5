// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/workload"
)

// chunkDump is one failure of a verbose job (TF_CPP_MIN_LOG_LEVEL=0): the
// BFC allocator's line, then n chunk lines of its dump, each a record of its
// own as the agent makes them, then Stats, the bar and the raised status
// with its traceback (oom/testdata/jobs/prealloc_false_leak_oom.log's forms).
func chunkDump(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "trainer")
	rl.Resource().Attributes().PutStr("host.name", "gpu-host-01")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	lrs.EnsureCapacity(n + 4)
	add := func(s string) { lrs.AppendEmpty().Body().SetStr(s) }
	add("W1126 11:17:36.431000    1915 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824) from the lower end requested by op ")
	programs := []string{"jit_broadcast_in_dim", "jit_step", "jit_stage", "jit_convert_element_type"}
	for i := range n {
		add(fmt.Sprintf("I1126 11:17:36.432%03d    1915 bfc_allocator.cc:1447] InUse at %x of size %d tag lower allocation_annotation xla.execute{executable=%s} next %d",
			i%1000, 0x302000000+i*256, 256<<(i%12), programs[i%len(programs)], i+1))
	}
	add("I1126 11:17:36.433000    1915 bfc_allocator.cc:1508] Stats: \nLimit:                        59.38GiB\nInUse:                         7.01GiB\nLargestFreeBlock:            616.00MiB")
	add("W1126 11:17:36.433100    1915 bfc_allocator.cc:609] ****_____\nTraceback (most recent call last):\n  File \"/app/train.py\", line 200, in run_job\n    step(x)\n" +
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.00GiB with allocator GPU_0_bfc on device 0. [executable_name='jit_broadcast_in_dim']")
	return ld
}

// BenchmarkFailureChunkDump is the cost of a failure whose dump prints
// 1,000 or 10,000 chunk lines, each a record: ns/line is the time per
// record of the batch, and B/op and allocs/op, the same for both lengths,
// show that the failure's state does not grow with its dump (they are the
// failure record and the tags of its statements).
func BenchmarkFailureChunkDump(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
			if err != nil {
				b.Fatal(err)
			}
			p := newTestProcessor(createDefaultConfig(), tb)
			batch := chunkDump(n)
			work := make([]plog.Logs, b.N)
			for i := range work {
				work[i] = plog.NewLogs()
				batch.CopyTo(work[i])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := p.processLogs(context.Background(), work[i]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n+3), "ns/line")
			if got := work[0].ResourceLogs().Len(); got != 2 {
				b.Fatalf("%d resources, want the batch's and its failure record's", got)
			}
		})
	}
}

// BenchmarkProcessorFailureOpenElsewhere is BenchmarkProcessorOrdinaryOnly
// while another stream (a host of another job) has a failure open: what a
// stream with no open failure pays for another's.
func BenchmarkProcessorFailureOpenElsewhere(b *testing.B) {
	cfg := createDefaultConfig()
	cfg.FailureQuietInterval = 10 * time.Minute
	sink := new(consumertest.LogsSink)
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, sink)
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		b.Fatal(err)
	}
	if err := p.ConsumeLogs(context.Background(), hostBatch("gpu-host-99", jobAllocator)); err != nil {
		b.Fatal(err)
	}
	workload.Bench(b, batches(ordinaryConfig()), func(ld plog.Logs) { _ = p.ConsumeLogs(context.Background(), ld) })
	if err := p.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
	all := sink.AllLogs()
	if last := all[len(all)-1]; last.LogRecordCount() != 1 || last.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).EventName() != oomattr.EventFailure {
		b.Fatal("the failure was not open throughout: no failure record at shutdown")
	}
}
