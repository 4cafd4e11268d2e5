// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Lines of the real job shared_gpu_backoff_then_oom (oom/testdata/jobs): the
// first of the pool set-up's 11 refused reservations beside a process that
// held 58 GiB, and the status the job raised 12 seconds later. The status
// alone does not say that memory was held elsewhere (unknown).
const (
	backOffAttempt = `E1126 11:16:29.817943     786 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`
	backOffFailure = `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 23.28GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error=''] [executable_name='jit_activations']`
)

// The two records of one failure in the real capture cuda_async_jit
// (oom/testdata/real): the cudaMallocAsync allocator's refusal, which names
// the device's total (futile on its own: the request is larger), and the
// status the program raised, which names only the request (unknown on its
// own).
const (
	asyncRefusal = `E1122 10:53:22.370551    1189 gpu_cudamallocasync_allocator.cc:366] gpu_async_0 cuMemAllocAsync failed to allocate 180007500304 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory
=== Source Location Trace: ===
external/xla+/xla/stream_executor/cuda/cuda_status.cc:45

 Reported by CUDA: Free memory/Total memory: 20676018176/85017493504`
	asyncRaised = `jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 167.64GiB with allocator gpu_async_0 on device 0. [executable_name='jit_temps_exceed_memory'] [tf-allocator-allocation-error='']`
)

// attemptsProcessor is a processor as the factory builds it, with no-op
// telemetry.
func attemptsProcessor(t *testing.T, cfg *Config) *logsProcessor {
	t.Helper()
	tb, err := metadata.NewTelemetryBuilder(componenttest.NewNopTelemetrySettings())
	require.NoError(t, err)
	return newTestProcessor(cfg, tb)
}

var attemptsT0 = time.Date(2026, 11, 26, 11, 16, 29, 0, time.UTC)

// rec is one record of a test batch: its job (service.name, "" for none),
// body, time after attemptsT0, and attributes it arrives with.
type rec struct {
	job   string
	body  string
	after time.Duration
	attrs map[string]any
}

// tagAll runs p over recs in order, one resource per record, and returns
// the xla.oom.retry of each ("" where none).
func tagAll(t *testing.T, p *logsProcessor, recs ...rec) []string {
	t.Helper()
	ld := plog.NewLogs()
	for _, r := range recs {
		rl := ld.ResourceLogs().AppendEmpty()
		if r.job != "" {
			rl.Resource().Attributes().PutStr("service.name", r.job)
		}
		rl.Resource().Attributes().PutStr("host.name", "gpu-host-01")
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.Body().SetStr(r.body)
		lr.SetTimestamp(pcommon.NewTimestampFromTime(attemptsT0.Add(r.after)))
		require.NoError(t, lr.Attributes().FromRaw(r.attrs))
	}
	_, err := p.processLogs(context.Background(), ld)
	require.NoError(t, err)
	var out []string
	for i := range recs { // the failure records closed in the batch come after
		v, ok := ld.ResourceLogs().At(i).ScopeLogs().At(0).LogRecords().At(0).Attributes().Get(oomattr.Retry)
		if !ok {
			out = append(out, "")
			continue
		}
		out = append(out, v.AsString())
	}
	return out
}

func TestFailureReadWithItsJobsAttempts(t *testing.T) {
	vmm, err := os.ReadFile(filepath.Join("oom", "testdata", "real", "vmm_jit.exception.txt")) // 167.65 GiB against a 59.38 GiB pool
	require.NoError(t, err)
	attempt := rec{job: "trainer", body: backOffAttempt}
	failure := func(after time.Duration) rec { return rec{job: "trainer", body: backOffFailure, after: after} }
	refusal := rec{job: "trainer", body: asyncRefusal}
	raised := func(after time.Duration) rec { return rec{job: "trainer", body: asyncRaised, after: after} }
	// The status without its exception's type: a failure record that ends nothing.
	raisedUnended := func(after time.Duration) rec {
		return rec{job: "trainer", body: strings.TrimPrefix(asyncRaised, "jax.errors.JaxRuntimeError: "), after: after}
	}
	const unknown, mayHelp, futile = oom.RetryUnknown, oom.RetryMayHelp, oom.RetryFutile
	for _, c := range []struct {
		name    string
		batches [][]rec
		want    []string // the failures' verdicts, in order
	}{
		{"no attempt before", [][]rec{{failure(0)}}, []string{unknown}},
		{"attempts before, same batch", [][]rec{{attempt, attempt, failure(12 * time.Second)}}, []string{mayHelp}},
		{"attempts in an earlier batch", [][]rec{{attempt}, {failure(12 * time.Second)}}, []string{mayHelp}},
		{"another job's attempts", [][]rec{{{job: "evaluator", body: backOffAttempt}, failure(12 * time.Second)}}, []string{unknown}},
		{"a resource that names no job is a stream too", [][]rec{{{body: backOffAttempt}, {body: backOffFailure}}}, []string{mayHelp}},
		{"a later record of the same failure keeps them", [][]rec{{attempt, failure(12 * time.Second)}, {failure(13 * time.Second)}}, []string{mayHelp, mayHelp}},
		{"a failure a window later is new, given the stream's attempts", [][]rec{{attempt, failure(12 * time.Second), failure(2 * time.Minute)}}, []string{mayHelp, mayHelp}},
		{"attempts between two failures go to the second", [][]rec{{failure(0), attempt, failure(2 * time.Minute)}}, []string{unknown, mayHelp}},
		{"attempts count in arrival order, not by date", [][]rec{{failure(12 * time.Second), {job: "trainer", body: backOffAttempt, after: 0}}}, []string{unknown}},
		{"the record's own sizes decide first", [][]rec{{attempt, {job: "trainer", body: string(vmm)}}}, []string{futile}},
		{"a sender's verdict is kept", [][]rec{{attempt, {job: "trainer", body: backOffFailure, attrs: map[string]any{oomattr.Retry: "futile"}}}}, []string{futile}},
		{"a failure's later record takes its first verdict", [][]rec{{refusal, raised(time.Second)}}, []string{futile, futile}},
		{"in a later batch too", [][]rec{{refusal}, {raised(time.Second)}}, []string{futile, futile}},
		{"the first verdict stands against a later one", [][]rec{{refusal, attempt, failure(12 * time.Second)}}, []string{futile, futile}},
		{"the raised status ends the failure's verdict", [][]rec{{refusal, raised(time.Second), raised(2 * time.Second)}}, []string{futile, futile, unknown}},
		{"a failure a window later has its own verdict", [][]rec{{refusal, raised(2 * time.Minute)}}, []string{futile, unknown}},
		{"another job's verdict is not taken", [][]rec{{refusal, {job: "evaluator", body: asyncRaised, after: time.Second}}}, []string{futile, unknown}},
		{"unknown is not carried", [][]rec{{raisedUnended(0), refusal}}, []string{unknown, futile}},
		{"a sender's verdict is not carried", [][]rec{{{job: "trainer", body: asyncRefusal, attrs: map[string]any{oomattr.Retry: mayHelp}}, raised(time.Second)}}, []string{mayHelp, unknown}},
		{"nor overwritten", [][]rec{{refusal, {job: "trainer", body: asyncRaised, after: time.Second, attrs: map[string]any{oomattr.Retry: unknown}}}}, []string{futile, unknown}},
		{"attempts tagged upstream are not this processor's", [][]rec{{
			{job: "trainer", body: backOffAttempt, attrs: map[string]any{oomattr.WarningKind: oom.WarningAllocationAttempt}}, failure(12 * time.Second),
		}}, []string{unknown}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := attemptsProcessor(t, createDefaultConfig())
			p.now = func() time.Time { return attemptsT0 }
			var got []string
			for _, b := range c.batches {
				for i, v := range tagAll(t, p, b...) {
					if strings.Contains(b[i].body, "Failed to allocate device memory") {
						continue // an attempt: never a verdict
					}
					assert.NotEmpty(t, v, "every failure carries a verdict")
					got = append(got, v)
				}
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// A failure tagged upstream is left as it is; the attempts do not change it.
func TestTaggedUpstreamUnchanged(t *testing.T) {
	p := attemptsProcessor(t, createDefaultConfig())
	got := tagAll(t, p, rec{job: "trainer", body: backOffAttempt},
		rec{job: "trainer", body: backOffFailure, attrs: map[string]any{oomattr.ErrorCode: "E0100", oomattr.Retry: oom.RetryUnknown}})
	assert.Equal(t, []string{"", oom.RetryUnknown}, got)
}

// Without memory_warnings the processor tags no attempt, so it remembers
// none.
func TestNoWarningsNoAttempts(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.MemoryWarnings = false
	p := attemptsProcessor(t, cfg)
	got := tagAll(t, p, rec{job: "trainer", body: backOffAttempt}, rec{job: "trainer", body: backOffFailure, after: time.Second})
	assert.Equal(t, []string{"", oom.RetryUnknown}, got)
}

// Batches of several jobs consumed at once: each job's failure is read with
// its own attempts only (run with -race).
func TestAttemptsConcurrentBatches(t *testing.T) {
	p := attemptsProcessor(t, createDefaultConfig())
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for w := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job := "job-" + string(rune('a'+w))
			var recs []rec
			if w%2 == 0 { // the even jobs back off first
				recs = append(recs, rec{job: job, body: backOffAttempt})
			}
			got[w] = tagAll(t, p, append(recs, rec{job: job, body: backOffFailure, after: time.Second})...)
		}()
	}
	wg.Wait()
	for w, g := range got {
		want := oom.RetryUnknown
		if w%2 == 0 {
			want = oom.RetryMayHelp
		}
		assert.Equal(t, want, g[len(g)-1], "job %d", w)
	}
}

// Ordinary records cost the failure stage nothing: it is not even looked at
// while no failure is open.
func TestOrdinaryRecordsKeepNothing(t *testing.T) {
	p := attemptsProcessor(t, createDefaultConfig())
	tagAll(t, p, rec{job: "trainer", body: "step 100 loss 0.25"}, rec{job: "trainer", body: backOffFailure})
	assert.Zero(t, p.assembler.Streams(), "the failure closed at its raised status; nothing is pending")
	p = attemptsProcessor(t, createDefaultConfig())
	tagAll(t, p, rec{job: "trainer", body: "step 100 loss 0.25"})
	assert.Zero(t, p.assembler.Streams())
}
