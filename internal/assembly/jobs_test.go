// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// records splits a log into records as the agent groups them: a line
// with a log header starts one (oom.LineStart), any other joins it.
func records(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	var recs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if oom.StartsRecord(line) || len(recs) == 0 {
			recs = append(recs, line)
			continue
		}
		recs[len(recs)-1] += "\n" + line
	}
	require.NoError(t, sc.Err())
	return recs
}

// assemble feeds records to a new assembler as one stream and returns the
// failures it closed, the last at the end of the input.
func assemble(recs []string) []Failure {
	a := New(Config{Window: time.Minute})
	var closed []Failure
	for _, text := range recs {
		closed = feedText(a, 0, text, time.Time{}, time.Unix(0, 0), closed)
	}
	return a.Flush(closed)
}

type manifestJob struct {
	Log     string `json:"log"`
	Failed  bool   `json:"failed"`
	Request *int64 `json:"failing_request_bytes"`
	Holder  string `json:"holder_program"`
	HeldGiB *int   `json:"held_by_another_process_gib"`
	Repeats bool   `json:"repeats_on_restart"`
	Site    *struct {
		File     string `json:"file"`
		Line     int64  `json:"line"`
		Function string `json:"function"`
	} `json:"site"`
}

// TestJobLogs: every failed job of oom/testdata/jobs is one failure, with
// the request, the holder and the site its manifest names, closed at its
// raised status; a job that ran on has none but those that went on after
// its program caught its own OOM.
func TestJobLogs(t *testing.T) {
	const dir = "../../oom/testdata/jobs"
	raw, err := os.ReadFile(filepath.Join(dir, "jobs-manifest.json"))
	require.NoError(t, err)
	var m struct{ Jobs map[string]manifestJob }
	require.NoError(t, json.Unmarshal(raw, &m))
	for name, job := range m.Jobs {
		t.Run(name, func(t *testing.T) {
			fs := assemble(records(t, filepath.Join(dir, job.Log)))
			if !job.Failed {
				for _, f := range fs {
					assert.Equal(t, ClosedWentOn, f.Closed, "a failure of a job that ran on")
				}
				return
			}
			require.Len(t, fs, 1)
			f := fs[0]
			r := f.Report
			assert.Equal(t, ClosedRaised, f.Closed)
			if job.Request != nil {
				assert.Equal(t, oom.KnownSize(*job.Request), r.Requested)
			}
			assert.Equal(t, job.Holder, r.MemoryHolder, "holder")
			require.NotNil(t, job.Site)
			assert.Equal(t, oom.Site{File: job.Site.File, Line: job.Site.Line, Function: job.Site.Function}, r.Site)
			switch {
			case job.HeldGiB != nil:
				assert.Equal(t, oom.RetryMayHelp, r.Retry, f.Decision.Rule)
				assert.Equal(t, oom.ActionFreeHeldMemory, r.Action)
			case job.Repeats:
				assert.Equal(t, oom.RetryFutile, r.Retry, f.Decision.Rule)
			}
		})
	}
}

// TestAssembledRulesReached: every retry rule that reads facts only a whole
// failure holds decides at least one real job's failure.
func TestAssembledRulesReached(t *testing.T) {
	paths, err := filepath.Glob("../../oom/testdata/jobs/*.log")
	require.NoError(t, err)
	reached := map[string]string{}
	for _, p := range paths {
		for _, f := range assemble(records(t, p)) {
			if f.Decision.Verdict != oom.RetryUnknown {
				reached[f.Decision.Rule] = filepath.Base(p)
			}
		}
	}
	for _, rule := range oom.AssembledRetryRules() {
		switch rule {
		case "held at start", "plan over the pool", oom.RuleRepeat:
			continue // no captured job printed what they read: internal/stage TestRulesOnWholeLogs, TestRepeat*
		}
		assert.NotEmpty(t, reached[rule], "rule %q: no job's failure reaches it", rule)
	}
}

// TestWentOnOnlyWhereTheProgramWentOn: of every log in testdata (the job
// logs, the real captures, the message samples and the look-alikes), only
// the jobs that ran on have a failure that closes as went_on: a program
// that died of its OOM never loses its failure record to the rule.
func TestWentOnOnlyWhereTheProgramWentOn(t *testing.T) {
	var paths []string
	err := filepath.WalkDir("../../oom/testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (filepath.Ext(p) == ".log" || filepath.Ext(p) == ".txt") {
			paths = append(paths, p)
		}
		return err
	})
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var wentOn []string
	for _, p := range paths {
		for _, f := range assemble(records(t, p)) {
			if f.Closed == ClosedWentOn {
				wentOn = append(wentOn, filepath.Base(p))
			}
		}
	}
	assert.Equal(t, []string{"caught_oom_halving_exit0.log"}, wentOn)
}
