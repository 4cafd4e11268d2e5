// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	xlaoomprocessor "github.com/xlaoom/xlaoomprocessor"
	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

// record is one record of a file, kept for the processor.
type record struct {
	line int
	text string
}

// readRecords groups a file's lines into records as explain does.
func readRecords(t *testing.T, path string) []record {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	var out []record
	require.NoError(t, splitRecords(bufio.NewReaderSize(f, readerSize), maxScanSize, func(r *Record) {
		require.False(t, r.Over, "no sample record is over the cap")
		out = append(out, record{line: r.Line, text: strings.ToValidUTF8(string(r.Text), "\uFFFD")})
	}))
	return out
}

// processRecords runs the xla_oom processor, default settings, over one
// record per text, all of one job as explain reads an input, and returns its
// output: the records, in order, and the failure records it made.
func processRecords(t *testing.T, recs []record) (plog.LogRecordSlice, []plog.LogRecord) {
	t.Helper()
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "job")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for _, r := range recs {
		lrs.AppendEmpty().Body().SetStr(r.text)
	}
	factory := xlaoomprocessor.NewFactory()
	sink := new(consumertest.LogsSink)
	p, err := factory.CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), factory.CreateDefaultConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, p.ConsumeLogs(context.Background(), ld))
	require.NoError(t, p.Shutdown(context.Background()))
	var failures []plog.LogRecord
	for b, ld := range sink.AllLogs() {
		for i, rl := range ld.ResourceLogs().All() {
			if b == 0 && i == 0 {
				continue // the records
			}
			for _, lr := range rl.ScopeLogs().At(0).LogRecords().All() {
				require.Equal(t, oomattr.EventFailure, lr.EventName())
				failures = append(failures, lr)
			}
		}
	}
	return sink.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords(), failures
}

// TestJSONIsWhatTheProcessorWrites runs the processor and `explain --json`
// over the same records of every sample, real capture and job log: each
// record the processor tags belongs to exactly one finding; a failure
// finding gathers exactly the records that name one failure
// (xla.oom.failure.id) and its attributes are that failure's record
// (xla.oom.failure), but for the ids; a warning's are what the processor
// writes on its record, with its severity; an attempt warning gathers only
// allocation attempts; and records the processor leaves untouched belong to
// no finding.
func TestJSONIsWhatTheProcessorWrites(t *testing.T) {
	failures, warnings, gathered := 0, 0, 0
	for _, set := range inputSets {
		for _, name := range inputFiles(t, set) {
			path := filepath.Join(set.dir, name)
			recs := readRecords(t, path)
			processed, failureRecords := processRecords(t, recs)
			byID := map[string]plog.LogRecord{}
			for _, lr := range failureRecords {
				id, _ := lr.Attributes().Get(oomattr.FailureID)
				byID[id.Str()] = lr
			}

			var stdout bytes.Buffer
			Main([]string{"explain", "--json", path}, nil, &stdout, new(bytes.Buffer))
			of := map[int]jsonFinding{} // by the line of each record gathered
			for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
				if line == "" {
					continue
				}
				var f jsonFinding
				require.NoError(t, json.Unmarshal([]byte(line), &f), line)
				require.NotEmpty(t, f.Records, line)
				assert.Equal(t, f.Line, f.Records[0], line)
				lines := f.Records
				if f.Attempts != nil && f.Severity == "ERROR" {
					lines = append(lines, f.Attempts.records()...)
				}
				for _, l := range lines {
					_, twice := of[l]
					assert.False(t, twice, "%s:%d: in two findings", path, l)
					of[l] = f
				}
			}

			tagged := 0
			failureOf := map[int]string{} // a finding's first line -> the failure id its records name
			for i, r := range recs {
				lr := processed.At(i)
				attrs := lr.Attributes()
				f, found := of[r.line]
				if attrs.Len() == 0 {
					assert.False(t, found, "%s:%d: the processor leaves this record untouched, explain reports it", path, r.line)
					continue
				}
				tagged++
				if !assert.True(t, found, "%s:%d: the processor tags this record, explain does not report it", path, r.line) {
					continue
				}
				id, isFailure := attrs.Get(oomattr.FailureID)
				wentOn := f.Attributes[oomattr.FailureClosed] == string(failure.ClosedWentOn) // no failure record
				if isFailure && !wentOn {
					if prev, seen := failureOf[f.Line]; seen {
						assert.Equal(t, prev, id.Str(), "%s:%d: the finding gathers records of two failures", path, r.line)
					}
					failureOf[f.Line] = id.Str()
				}
				if f.Line != r.line { // a later record of the finding
					gathered++
					kind, _ := attrs.Get(oomattr.WarningKind)
					if f.Severity == "ERROR" && !slices.Contains(f.Attempts.records(), r.line) {
						assert.True(t, isFailure, "%s:%d: a failure gathers a record that is not one", path, r.line)
					} else {
						assert.Equal(t, "allocation_attempt", kind.AsString(), "%s:%d: a failure's or a warning's attempt is not one", path, r.line)
					}
					continue
				}
				if isFailure {
					failures++
					continue
				}
				warnings++
				assert.Equal(t, lr.SeverityText(), f.Severity, "%s:%d", path, r.line)
				assert.Equal(t, viaJSON(t, attrs.AsRaw()), f.Attributes, "%s:%d", path, r.line)
			}
			assert.Len(t, of, tagged, path)
			assert.Len(t, failureOf, len(byID), "%s: one finding per failure record", path)
			for line, id := range failureOf {
				rec, ok := byID[id]
				if !assert.True(t, ok, "%s:%d: no failure record for the finding's failure", path, line) {
					continue
				}
				want := rec.Attributes().AsRaw()
				delete(want, oomattr.FailureID)
				delete(want, oomattr.Incident) // depends on the record's time, which a file does not carry
				assert.Equal(t, viaJSON(t, want), of[line].Attributes, "%s:%d: the finding and the failure record", path, line)
				assert.Equal(t, rec.SeverityText(), of[line].Severity)
			}
		}
	}
	assert.Greater(t, failures, 20, "the samples and captures hold many failures")
	assert.Greater(t, warnings, 5, "and warnings")
	assert.Greater(t, gathered, 100, "and failures and attempts stated by several records")
}

func (a *jsonAttempts) records() []int {
	if a == nil {
		return nil
	}
	return a.Records
}

// viaJSON turns raw attribute values into what decoding their JSON gives, so
// they compare with a decoded finding.
func viaJSON(t *testing.T, raw map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(raw)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// TestCapIsTheProcessors: a record of exactly max_scan_size bytes is read by
// both, one byte more by neither.
func TestCapIsTheProcessors(t *testing.T) {
	const oomLine = "E0912 07:02:44.350251   27487 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes."
	for _, size := range []int{maxScanSize, maxScanSize + 1} {
		text := oomLine + "\n" + strings.Repeat("x", size-len(oomLine)-1)
		require.Len(t, text, size)
		processed, _ := processRecords(t, []record{{line: 1, text: text}})
		_, tagged := processed.At(0).Attributes().Get(oomattr.ErrorCode)

		var stdout, stderr bytes.Buffer
		status := Main([]string{"explain", "--json"}, strings.NewReader(text+"\n"), &stdout, &stderr)
		assert.Equal(t, tagged, status == ExitFound, "size %d: the processor tags it: %v, explain: %s", size, tagged, stderr.String())
		assert.Equal(t, size <= maxScanSize, tagged, "size %d", size)
		assert.Equal(t, size > maxScanSize, strings.Contains(stderr.String(), "1 record over 1.00 MiB not read"), stderr.String())
	}
}

// TestAttemptsAgreeWithTheProcessor: explain counts the allocation attempts
// of a failure as the processor does, on every sample, real capture and job
// log: a failure finding's attempts are the processor's xla.oom.attempts of
// its failure records plus the attempts of the allocation_attempt warnings
// it took. The refusal of the very request that failed is counted by
// neither.
func TestAttemptsAgreeWithTheProcessor(t *testing.T) {
	checked := 0
	for _, set := range inputSets {
		for _, name := range inputFiles(t, set) {
			path := filepath.Join(set.dir, name)
			recs := readRecords(t, path)
			processed, _ := processRecords(t, recs)
			attemptsAt := map[int]int64{} // xla.oom.attempts by record line; 1 for a warning without it
			for i, r := range recs {
				attrs := processed.At(i).Attributes()
				n := int64(0)
				if v, ok := attrs.Get(oomattr.Attempts); ok {
					n = v.Int()
				}
				if k, ok := attrs.Get(oomattr.WarningKind); ok && k.AsString() == "allocation_attempt" {
					n = max(n, 1)
				}
				attemptsAt[r.line] = n
			}
			var stdout bytes.Buffer
			Main([]string{"explain", "--json", path}, nil, &stdout, new(bytes.Buffer))
			for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
				var f jsonFinding
				if line == "" || json.Unmarshal([]byte(line), &f) != nil || f.Severity != "ERROR" {
					continue
				}
				var want int64
				for _, l := range f.Records {
					want += attemptsAt[l]
				}
				for _, l := range f.Attempts.records() {
					want += attemptsAt[l]
				}
				got := 0
				if f.Attempts != nil {
					got = f.Attempts.Count
				}
				assert.Equal(t, want, int64(got), "%s:%d: explain's attempts and the processor's", path, f.Line)
				checked++
			}
		}
	}
	assert.Greater(t, checked, 20, "the samples and captures hold many failures")
}
