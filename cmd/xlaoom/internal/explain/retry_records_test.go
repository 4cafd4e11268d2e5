// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	xlaoomprocessor "github.com/xlaoom/xlaoomprocessor"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// processOneByOne runs one xla_oom processor, default settings, over the
// records of one job, each in a batch of its own (as a pipeline whose
// batches split a failure's records), and returns the xla.oom.retry of each
// record ("" where none).
func processOneByOne(t *testing.T, recs []record) []string {
	t.Helper()
	factory := xlaoomprocessor.NewFactory()
	sink := new(consumertest.LogsSink)
	p, err := factory.CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), factory.CreateDefaultConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	for _, r := range recs {
		ld := plog.NewLogs()
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "job")
		rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(r.text)
		require.NoError(t, p.ConsumeLogs(context.Background(), ld))
	}
	require.NoError(t, p.Shutdown(context.Background()))
	out := make([]string, 0, len(recs))
	for _, ld := range sink.AllLogs() {
		lr := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
		if lr.EventName() == oomattr.EventFailure {
			continue // the failures open at shutdown
		}
		verdict := ""
		if v, ok := lr.Attributes().Get(oomattr.Retry); ok {
			verdict = v.Str()
		}
		out = append(out, verdict)
	}
	return out
}

// On the real cudaMallocAsync captures the failure is stated twice: by the
// allocator's refusal, which names a request larger than the device (futile
// on its own), and by the exception the program raised, which names only
// the request (unknown on its own). Both records carry the allocator's
// verdict, explain's finding's, whether they arrive in one batch or apart.
func TestFailureRecordsShareTheirVerdict(t *testing.T) {
	for _, name := range []string{"cuda_async_device_put.stderr.txt", "cuda_async_jit.stderr.txt"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("../../../../oom/testdata/real", name)
			recs := readRecords(t, path)
			var failures []record
			alone := map[int]string{} // each failure record's verdict read with no record before it
			for _, r := range recs {
				if v := processOneByOne(t, []record{r})[0]; v != "" {
					failures = append(failures, r)
					alone[r.line] = v
				}
			}
			require.Len(t, failures, 2, "the allocator's refusal and the raised exception")
			assert.Equal(t, oom.RetryFutile, alone[failures[0].line], "the refusal names a request larger than the device")
			assert.Equal(t, oom.RetryUnknown, alone[failures[1].line], "the exception alone names only the request")

			all, _ := jsonFindings(t, path)
			var findings []jsonFinding
			for _, f := range all {
				if f.Severity == "ERROR" {
					findings = append(findings, f)
				}
			}
			require.Len(t, findings, 1, "one failure")
			assert.Equal(t, oom.RetryFutile, findings[0].Retry)
			assert.Equal(t, []int{failures[0].line, failures[1].line}, findings[0].Records, "its finding gathers both records")

			processed, failureRecords := processRecords(t, recs)
			require.Len(t, failureRecords, 1, "one failure record")
			v, _ := failureRecords[0].Attributes().Get(oomattr.Retry)
			assert.Equal(t, oom.RetryFutile, v.Str(), "the failure record's verdict")
			split := processOneByOne(t, recs)
			for i, r := range recs {
				if _, failure := alone[r.line]; !failure {
					continue
				}
				got, _ := processed.At(i).Attributes().Get(oomattr.Retry)
				assert.Equal(t, oom.RetryFutile, got.AsString(), "line %d, one batch", r.line)
				assert.Equal(t, oom.RetryFutile, split[i], "line %d, a batch per record", r.line)
			}
		})
	}
}
