// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/jobcheck"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// jsonFindings runs explain --json on paths and returns its findings and
// exit status.
func jsonFindings(t *testing.T, paths ...string) ([]jsonFinding, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := Main(append([]string{"explain", "--json"}, paths...), nil, &stdout, &stderr)
	var out []jsonFinding
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if l == "" {
			continue
		}
		var f jsonFinding
		require.NoError(t, json.Unmarshal([]byte(l), &f), l)
		out = append(out, f)
	}
	return out, status
}

// Every real job that failed because memory was held outside the program is
// may_help, and explain exits 1 (not futile) on it.
func TestJobVerdicts(t *testing.T) {
	jobs, err := jobcheck.ReadJobs(jobsDir)
	require.NoError(t, err)
	held := map[string]bool{} // the jobs that failed while memory was held outside their program
	for _, j := range jobs {
		if j.Failed && j.HeldElsewhere {
			held[j.Name] = true
		}
	}
	require.Len(t, held, 6, "the manifest's jobs that failed beside another holder")
	logs, err := filepath.Glob(filepath.Join(jobsDir, "*.log"))
	require.NoError(t, err)
	var table []string
	for _, p := range logs {
		name := strings.TrimSuffix(filepath.Base(p), ".log")
		findings, status := jsonFindings(t, p)
		verdicts := []string{}
		for _, f := range findings {
			if f.Attributes[oomattr.FailureClosed] == string(assembly.ClosedWentOn) {
				continue // caught by the program, not a failure of the job
			}
			if f.Severity != "ERROR" {
				assert.Empty(t, f.Retry, "%s:%d: a warning has no verdict", name, f.Line)
				assert.NotContains(t, f.Attributes, oomattr.Retry, "%s:%d", name, f.Line)
				continue
			}
			verdicts = append(verdicts, f.Retry)
			assert.Contains(t, f.Attributes, oomattr.Retry, "%s:%d: the processor's own verdict is there too", name, f.Line)
		}
		table = append(table, name+": "+strings.Join(verdicts, ", "))
		if held[name] {
			require.Len(t, verdicts, 1, name)
			assert.Equal(t, oom.RetryMayHelp, verdicts[0], name)
			assert.Equal(t, ExitFound, status, name)
		}
	}
	sort.Strings(table)
	t.Logf("verdict per job log:\n%s", strings.Join(table, "\n"))
}

// Exit status 3 says that the last failure found is futile; the JSON
// carries the verdict, the attributes and the fit fraction.
func TestExitFutile(t *testing.T) {
	futile := filepath.Join(realDir, "vmm_jit.exception.txt") // 167.65 GiB against a 59.38 GiB pool
	mayHelp := filepath.Join(jobsDir, "two_jobs_second.log")
	findings, status := jsonFindings(t, futile)
	require.Len(t, findings, 1)
	f := findings[0]
	assert.Equal(t, ExitFutile, status)
	assert.Equal(t, oom.RetryFutile, f.Retry)
	assert.Equal(t, oom.RetryFutile, f.Attributes[oomattr.Retry])
	// The GPU's size is not printed: the advice's first step is a larger
	// pool, if the GPU has well over the request.
	assert.Equal(t, oom.ActionSetMemoryLimit, f.Attributes[oomattr.Action])
	assert.InDelta(t, 63763120128.0/180009041920, f.FitFraction, 1e-9, "pool limit / request")

	_, status = jsonFindings(t, futile, mayHelp)
	assert.Equal(t, ExitFound, status, "the last failure found decides: may_help")
	_, status = jsonFindings(t, mayHelp, futile)
	assert.Equal(t, ExitFutile, status, "the last failure found decides: futile")
	_, status = jsonFindings(t, filepath.Join(jobsDir, "two_jobs_first.log"))
	assert.Equal(t, ExitNone, status)
}

// realDir holds the real GPU captures.
const realDir = "../../../../oom/testdata/real"
