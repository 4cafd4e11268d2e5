// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	xlaoomprocessor "github.com/xlaoom/xlaoomprocessor"
	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
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
	lrs, failures, _ := processAll(t, recs)
	return lrs, failures
}

// processAll is processRecords, and the kill records the processor sent
// apart (a kill that ended with no record of its own, at shutdown).
func processAll(t *testing.T, recs []record) (plog.LogRecordSlice, []plog.LogRecord, []plog.LogRecord) {
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
	var failures, kills []plog.LogRecord
	for b, ld := range sink.AllLogs() {
		for i, rl := range ld.ResourceLogs().All() {
			if b == 0 && i == 0 {
				continue // the records
			}
			for _, lr := range rl.ScopeLogs().At(0).LogRecords().All() {
				if lr.EventName() == oomattr.EventHostKill {
					kills = append(kills, lr)
					continue
				}
				require.Equal(t, oomattr.EventFailure, lr.EventName())
				failures = append(failures, lr)
			}
		}
	}
	return sink.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords(), failures, kills
}

// lineRecords are a file's lines, one record each, as a collector that
// does not group lines sends them.
func lineRecords(t *testing.T, path string) []record {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []record
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		out = append(out, record{line: i + 1, text: strings.ToValidUTF8(l, "\uFFFD")})
	}
	return out
}

// splitException are the fixtures whose exception message runs over two
// lines: fed line by line, its second line states a failure of its own
// after the first closed the failure.
var splitException = map[string]bool{
	"autotune_starved.stderr.txt": true, "autotune_starved.traceback.txt": true, "autotune_in_training_step.log": true,
}

// hostSet are the host-memory kills of hostoom's tests.
var hostSet = inputSet{name: "host", dir: "../../../../hostoom/testdata", glob: "*.txt"}

// explained is what explain --json reports of one file: its failures, the
// lines of the records that state them (and those of the OOMs a program
// went on after), and each kill's attributes.
type explained struct {
	failures   int
	statements [][]int
	failed     map[int]map[string]any // a failure's attributes by its first record's line
	warnings   map[int]map[string]any // a warning's attributes by its record's line
	kills      []map[string]any
}

func explainFile(t *testing.T, path string) explained {
	t.Helper()
	var stdout bytes.Buffer
	Main([]string{"explain", "--json", path}, nil, &stdout, new(bytes.Buffer))
	e := explained{failed: map[int]map[string]any{}, warnings: map[int]map[string]any{}}
	for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		var f struct {
			jsonFinding
			Kind string `json:"kind"`
		}
		if line == "" {
			continue
		}
		require.NoError(t, json.Unmarshal([]byte(line), &f), line)
		if f.Kind == "host_kill" {
			e.kills = append(e.kills, f.Attributes)
		} else if closed, ok := f.Attributes[oomattr.FailureClosed]; ok {
			e.statements = append(e.statements, f.Records)
			if closed != string(assembly.ClosedWentOn) {
				e.failures++
				e.failed[f.Line] = f.Attributes
			}
		} else if f.Severity == "WARN" {
			e.warnings[f.Line] = f.Attributes
		}
	}
	return e
}

// processed is what the processor wrote on one file's records.
type processed struct {
	failures   int
	statements map[int]bool           // the lines of the records that state a failure
	failed     map[int]map[string]any // its failure record's attributes, by such a line, but the ids
	warnings   map[int]map[string]any // the attributes of the records tagged as warnings
	kills      []map[string]any       // the attributes of the records that carry a kill
}

func processFile(t *testing.T, recs []record) processed {
	t.Helper()
	lrs, failures, sent := processAll(t, recs)
	byID := map[string]map[string]any{}
	for _, lr := range failures {
		id, _ := lr.Attributes().Get(oomattr.FailureID)
		attrs := lr.Attributes().AsRaw()
		delete(attrs, oomattr.FailureID)
		delete(attrs, oomattr.Incident) // of the record's time, which a file lacks
		byID[id.Str()] = viaJSON(t, attrs)
	}
	out := processed{failures: len(failures), statements: map[int]bool{}, failed: map[int]map[string]any{}, warnings: map[int]map[string]any{}}
	for i, r := range recs {
		attrs := lrs.At(i).Attributes()
		if id, ok := attrs.Get(oomattr.FailureID); ok {
			out.statements[r.line] = true
			if f, ok := byID[id.Str()]; ok {
				out.failed[r.line] = f
			}
		} else if _, ok := attrs.Get(oomattr.WarningKind); ok {
			out.warnings[r.line] = viaJSON(t, attrs.AsRaw())
		}
		if oomattr.HostKilled(attrs) {
			out.kills = append(out.kills, viaJSON(t, attrs.AsRaw()))
		}
	}
	for _, lr := range sent {
		out.kills = append(out.kills, viaJSON(t, lr.Attributes().AsRaw()))
	}
	return out
}

// TestOnePath: every fixture, through the processor fed the agent's
// records and fed line by line, and through explain (the same stage on a
// file), states the same failures in the same records and the same kills.
func TestOnePath(t *testing.T) {
	failures, warnings, kills := 0, 0, 0
	for _, set := range append([]inputSet{hostSet}, inputSets...) {
		for _, name := range inputFiles(t, set) {
			path := filepath.Join(set.dir, name)
			want := explainFile(t, path)
			failures += want.failures
			warnings += len(want.warnings)
			kills += len(want.kills)
			grouped := readRecords(t, path)
			next := map[int]int{} // a record's first line -> the next record's
			for i := range grouped {
				next[grouped[i].line] = math.MaxInt
				if i+1 < len(grouped) {
					next[grouped[i].line] = grouped[i+1].line
				}
			}
			for _, feed := range []struct {
				name string
				recs []record
			}{{"the agent's records", grouped}, {"line by line", lineRecords(t, path)}} {
				if feed.name == "line by line" && splitException[name] {
					continue
				}
				got := processFile(t, feed.recs)
				assert.Equal(t, want.failures, got.failures, "%s, %s: failures", path, feed.name)
				if feed.name == "line by line" {
					compareKills(t, path+", "+feed.name, want.kills, got.kills)
					continue // a record's first line alone may read otherwise
				}
				// Each record explain gathers into a failure holds a statement.
				stated := 0
				for _, lines := range want.statements {
					for _, first := range lines {
						n := 0
						for l := range got.statements {
							if l >= first && l < next[first] {
								n++
							}
						}
						assert.Positive(t, n, "%s:%d, %s: a statement explain gathers", path, first, feed.name)
						stated += n
					}
				}
				assert.Len(t, got.statements, stated, "%s, %s: statements explain does not gather", path, feed.name)
				assert.Len(t, want.failed, want.failures, path)
				for line, attrs := range want.failed {
					assert.Equal(t, attrs, got.failed[line], "%s:%d: the failure and its record", path, line)
				}
				for line, attrs := range want.warnings {
					assert.Equal(t, attrs, got.warnings[line], "%s:%d: the warning and its record", path, line)
				}
				for line, attrs := range got.warnings { // attempts gather into one finding
					if attrs[oomattr.WarningKind] != "allocation_attempt" {
						assert.Contains(t, want.warnings, line, "%s:%d: a warning explain does not report", path, line)
					}
				}
				compareKills(t, path+", "+feed.name, want.kills, got.kills)
			}
		}
	}
	assert.Greater(t, failures, 20)
	assert.Greater(t, warnings, 5)
	assert.Positive(t, kills)
}

// compareKills: the processor wrote each kill explain found, as explain
// reports it.
func compareKills(t *testing.T, where string, want, got []map[string]any) {
	t.Helper()
	assert.Len(t, got, len(want), "%s: kills", where)
	for i := range min(len(got), len(want)) {
		for k, v := range want[i] {
			assert.Equal(t, v, got[i][k], "%s: kill %d: %s", where, i, k)
		}
	}
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
