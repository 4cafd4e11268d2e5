// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Lines of real logs (oom/testdata/jobs, the demo samples), with their times
// changed where a case needs another gap.
const (
	statusLine   = "E0912 07:02:44.350251   27487 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes."
	bfcLine      = "W1126 11:18:32.683878    3226 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 93.13GiB (rounded to 100000000000) from the lower end requested by op "
	raisedLines  = "Traceback (most recent call last):\n  File \"/app/train.py\", line 212, in run\n    state, metrics = p_train_step(state, batch)\njax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 93.13GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error=''] [executable_name='jit_step']"
	attemptLine  = "E1126 11:16:29.817943     786 cuda_executor.cc:1365] [0] Failed to allocate device memory of %s: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory"
	asyncAttempt = "E1126 11:17:57.846859    2708 gpu_cudamallocasync_allocator.cc:366] gpu_async_0 cuMemAllocAsync failed to allocate 63763120128 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n Reported by CUDA: Free memory/Total memory: 19529728/85017493504"
	ordinaryLine = "I1126 11:18:32.684100    3226 train.py:96] step 4 loss 0.0002"
)

func attempt(size string) string { return strings.Replace(attemptLine, "%s", size, 1) }

// explainJSON runs explain --json over log and returns its findings.
func explainJSON(t *testing.T, log string) []jsonFinding {
	t.Helper()
	var stdout bytes.Buffer
	Main([]string{"explain", "--json"}, strings.NewReader(log), &stdout, new(bytes.Buffer))
	var out []jsonFinding
	for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var f jsonFinding
		require.NoError(t, json.Unmarshal([]byte(line), &f), line)
		out = append(out, f)
	}
	return out
}

func TestOneFindingPerFailure(t *testing.T) {
	backoff := strings.Join([]string{attempt("59.38GiB (63763906560 bytes)"), attempt("53.45GiB (57387515904 bytes)"),
		attempt("48.10GiB (51648761856 bytes)")}, "\n")
	for _, c := range []struct {
		name    string
		log     []string
		records [][]int // per finding, the lines of its records
		summary string  // what the attempts of each finding say, "" for none
		want    []string
	}{
		{name: "allocator report, status line and exception", log: []string{bfcLine, ordinaryLine, strings.Replace(statusLine, "E0912 07:02:44", "E1126 11:18:33", 1), "E1126 11:18:33.1 train.py:9] step failed\n" + raisedLines},
			records: [][]int{{1, 3, 4}}},
		{name: "status lines minutes apart, no exception", log: []string{statusLine, ordinaryLine, strings.Replace(statusLine, "07:02:44", "07:05:41", 1)},
			records: [][]int{{1}, {3}}},
		{name: "status lines seconds apart", log: []string{statusLine, strings.Replace(statusLine, "07:02:44", "07:03:40", 1)},
			records: [][]int{{1, 2}}},
		{name: "each failure raised", log: []string{"E0912 07:02:44.1 train.py:9] step failed\n" + raisedLines, "E0912 07:02:45.1 train.py:9] step failed\n" + raisedLines},
			records: [][]int{{1}, {6}}},
		{name: "exception lines join the record before them", log: []string{bfcLine, raisedLines},
			records: [][]int{{1}}},
		{name: "back-off before a failure", log: []string{backoff, ordinaryLine, bfcLine, raisedLines},
			records: [][]int{{5}}, want: []string{`"summary":"3 pool back-off steps from 59.38 GiB to 48.10 GiB"`, `"records":[1,2,3]`}},
		{name: "attempts go to the failure after them", log: []string{bfcLine + "\n" + raisedLines, backoff, bfcLine + "\n" + raisedLines},
			records: [][]int{{1}, {9}}, want: []string{`"line":9,`, `"count":3`}},
		{name: "attempts after the last failure are a warning", log: []string{bfcLine + "\n" + raisedLines, backoff},
			records: [][]int{{1}, {6, 7, 8}}, want: []string{`"severity":"WARN"`, `"back_off":true`}},
		{name: "cudaMallocAsync reservation", log: []string{asyncAttempt, ordinaryLine},
			records: [][]int{{1}}, want: []string{`"cuda_free_bytes":19529728`, `"cuda_total_bytes":85017493504`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			findings := explainJSON(t, strings.Join(c.log, "\n")+"\n")
			var got [][]int
			var all strings.Builder
			for _, f := range findings {
				got = append(got, f.Records)
				b, err := json.Marshal(f)
				require.NoError(t, err)
				all.Write(b)
			}
			assert.Equal(t, c.records, got)
			for _, w := range c.want {
				assert.Contains(t, all.String(), w)
			}
		})
	}
}

func TestAttemptWarningText(t *testing.T) {
	var stdout bytes.Buffer
	Main([]string{"explain"}, strings.NewReader(asyncAttempt+"\n"), &stdout, new(bytes.Buffer))
	out := stdout.String()
	for _, want := range []string{
		"stdin:1: memory warning allocation_attempt (not an OOM): 1 refused allocation, no failure followed\n",
		"  attempts            1 refused allocation of 59.38 GiB\n",
		"  CUDA free / total   18.62 MiB / 79.18 GiB\n",
		"  what to do\n    1. The driver refused 59.38 GiB (once)",
		"summary: 0 OOM failures, 1 memory warning, 1 allocation attempt (not failures) in 1 record",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "last refused", "one attempt has no last")
}

func TestAttemptsSeries(t *testing.T) {
	size := oom.KnownSize
	var a Attempts
	for _, n := range []int64{63763906560, 57387515904, 51648761856} { // pool set-up
		a.add(1, size(n), oom.Size{}, oom.Size{}, oom.Size{})
	}
	for range 2 { // pool growth, twice the same series
		a.add(1, size(8589934592), oom.Size{}, oom.Size{}, oom.Size{})
		a.add(1, size(7730940928), oom.Size{}, oom.Size{}, oom.Size{})
	}
	a.add(2, oom.Size{}, oom.Size{}, oom.Size{}, oom.Size{}) // no size printed
	a.add(1, size(100000000000), oom.Size{}, oom.Size{}, oom.Size{})
	a.add(1, size(50000000000), oom.Size{}, oom.Size{}, oom.Size{}) // halving: not a back-off
	assert.Equal(t, "11 refused allocations: 3 pool back-off steps from 59.38 GiB to 48.10 GiB; "+
		"2 pool back-off steps from 8.00 GiB to 7.20 GiB, 2 times; 2 refused allocations (size not printed); "+
		"2 refused allocations from 93.13 GiB to 46.57 GiB", a.Text())
	assert.Equal(t, size(63763906560), a.First)
	assert.Equal(t, size(50000000000), a.Last)

	var many Attempts
	for i := range maxSeries + 3 {
		many.add(1, size(int64(1000+i)), oom.Size{}, oom.Size{}, oom.Size{}) // each larger: a series each
	}
	text := many.Text()
	assert.Len(t, many.Series, maxSeries)
	assert.Equal(t, 3, many.MoreSeries)
	assert.True(t, strings.HasSuffix(text, "; 3 more series"), text)
	assert.Equal(t, maxSeries+3, many.Count)

	var into Attempts
	into.add(1, size(63763906560), oom.Size{}, oom.Size{}, oom.Size{})
	var later Attempts
	later.add(1, size(57387515904), oom.Size{}, oom.Size{}, oom.Size{})
	later.Lines = []int{9}
	into.merge(&later)
	into.add(1, size(51648761856), oom.Size{}, oom.Size{}, oom.Size{}) // continues the merged series
	assert.Equal(t, "3 pool back-off steps from 59.38 GiB to 48.10 GiB", into.Text())
	assert.Equal(t, []int{9}, into.Lines)
}
