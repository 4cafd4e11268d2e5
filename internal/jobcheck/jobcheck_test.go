// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package jobcheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

const realJobs = "../../oom/testdata/jobs"

func TestReadJobsReal(t *testing.T) {
	jobs, err := ReadJobs(realJobs)
	require.NoError(t, err)
	byName := map[string]Job{}
	for _, j := range jobs {
		byName[j.Name] = j
	}
	require.Contains(t, byName, "shared_gpu_backoff_then_oom")
	assert.True(t, byName["shared_gpu_backoff_then_oom"].Failed)
	assert.Equal(t, int64(25000000000), byName["shared_gpu_backoff_then_oom"].FailingRequest)
	assert.False(t, byName["shared_gpu_backoff_then_oom.holder"].Failed, "a holder's log is a job that did not fail")
	assert.Zero(t, byName["autotune_in_training_step"].FailingRequest, "null failing_request_bytes is unknown")
}

func TestReadJobsRefusesAnUnlistedLog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
	}
	write(ManifestFile, `{"jobs": {"a": {"log": "a.log", "failed": false, "returncode": 0, "failing_request_bytes": null}}}`)
	write("a.log", "I1126 11:16:29.579942 1 x.cc:1] hello\n")
	_, err := ReadJobs(dir)
	require.NoError(t, err)
	write("b.log", "I1126 11:16:29.579942 1 x.cc:1] hello\n")
	_, err = ReadJobs(dir)
	assert.ErrorContains(t, err, "b.log is not in")
	write(ManifestFile, `{"jobs": {"a": {"log": "a.log", "failed": false, "returncode": 1}}}`)
	_, err = ReadJobs(dir)
	assert.ErrorContains(t, err, "failed=false with returncode 1")
}

// The attempt forms of issue 27, as the real logs and XLA's sources print them.
func TestAttempts(t *testing.T) {
	text := strings.Join([]string{
		`E1126 11:16:29.817943     786 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		`=== Source Location Trace: ===`,
		`E1126 11:16:29.817943     786 cuda_executor.cc:1365] [0] Failed to allocate host memory of 2.00GiB (2147483648 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		`E0912 07:00:01.000000   1 cuda_driver.cc:1] failed to allocate 2.00GiB (2147483648 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		`W0912 07:00:01.000000   1 device_host_allocator.h:1] could not allocate pinned host memory of size: 1048576`,
		`E1126 11:19:02.168393    4021 gpu_cudamallocasync_allocator.cc:282] gpu_async_0 cuMemAllocAsync failed to allocate 63763120128 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`,
		// Not attempts: another error than out of memory, and the failure itself.
		`E1126 11:16:29.817943     786 cuda_executor.cc:1365] [0] Failed to allocate device memory of 1.00GiB (1073741824 bytes): INTERNAL: : CUDA_ERROR_INVALID_VALUE`,
		`jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 25000000000 bytes.`,
	}, "\n")
	assert.Equal(t, []Attempt{{1, 63763906560}, {3, 2147483648}, {4, 2147483648}, {5, 1048576}, {6, 63763120128}}, Attempts(text))
}

func TestLinesIn(t *testing.T) {
	assert.Equal(t, 2, LinesIn("a\n\n  \nb\n"))
}

// attemptLine and failureLine are real lines of shared_gpu_backoff_then_oom.
const (
	attemptLine = `E1126 11:16:29.817943     786 cuda_executor.cc:1365] [0] Failed to allocate device memory of 59.38GiB (63763906560 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`
	failureLine = `W1126 11:16:43.148484     786 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 23.28GiB (rounded to 25000000000) from the lower end requested by op `
	stepLine    = `I1126 11:16:33.000000     786 train.py:1] step 4`
)

// TestCheck: what a correct run gives passes, and each way of getting a job
// wrong is reported.
func TestCheck(t *testing.T) {
	failed := Job{Name: "j", Failed: true, ReturnCode: 1, FailingRequest: 25000000000, HeldElsewhere: true}
	ran := Job{Name: "k", ReturnCode: 0}
	log := attemptLine + "\n" + stepLine + "\n" + failureLine + "\n"
	attempt := Record{Body: attemptLine, WarningKind: AttemptWarning, Requested: 63763906560, HasRequested: true}
	step := Record{Body: stepLine}
	failure := Record{Body: failureLine, ErrorCode: "E0007", Requested: 25000000000, HasRequested: true, IncidentID: "i1", Retry: "may_help"}
	labels := map[string]int64{"may_help": 1}
	good := withFailure(Observed{Records: []Record{attempt, step, failure}, Incidents: 1, AttemptWarnings: 1, IncidentsByRetry: labels, ExplainRetry: "may_help"}, failure)

	r := Check(failed, log, good)
	assert.Empty(t, r.Problems)
	assert.Equal(t, 1, r.AttemptsInLog)
	assert.Equal(t, []int64{25000000000}, r.Requested)

	// A rounded human size of the failing request is the failing request.
	rounded := failure
	rounded.Requested = 24997000000 // "23.28 GiB" too
	assert.Empty(t, Check(failed, log, withFailure(Observed{Records: []Record{attempt, step, rounded}, Incidents: 1, AttemptWarnings: 1, IncidentsByRetry: labels}, rounded)).Problems)

	cases := map[string]struct {
		job  Job
		obs  Observed
		want string
	}{
		"the attempt is a failure": {failed, Observed{Records: []Record{
			{Body: attemptLine, ErrorCode: "E0007", Requested: 63763906560, HasRequested: true, IncidentID: "i0"}, step, failure,
		}, Incidents: 2}, "states an attempt's size"},
		"two incidents": {failed, Observed{Records: good.Records, Incidents: 2, AttemptWarnings: 1}, "xla.oom.incidents = 2, want 1"},
		"a job that ran on has an incident": {ran, Observed{Records: []Record{{Body: attemptLine, ErrorCode: "E0007", IncidentID: "i0"}, step, step}, Incidents: 1},
			"xla.oom.incidents = 1, want 0"},
		"the attempt is not tagged": {failed, Observed{Records: []Record{{Body: attemptLine}, step, failure}, Incidents: 1},
			"neither a failure nor an allocation_attempt warning (untagged)"},
		"the warning has the wrong size": {failed, Observed{Records: []Record{{Body: attemptLine, WarningKind: AttemptWarning}, step, failure}, Incidents: 1, AttemptWarnings: 1},
			"does not state its (first) attempt's bytes"},
		"the failure states no size": {failed, Observed{Records: []Record{attempt, step, {Body: failureLine, ErrorCode: "E0007", IncidentID: "i1"}}, Incidents: 1, AttemptWarnings: 1},
			"no requested size: "},
		"the attempt warning is not counted": {failed, Observed{Records: good.Records, Incidents: 1}, "xla.memory.warnings{allocation_attempt} = 0"},
		"a record was lost":                  {failed, Observed{Records: []Record{attempt, failure}, Incidents: 1, AttemptWarnings: 1}, "hold 2 of the log's 3"},
		"two incident ids": {failed, withFailure(good, Record{ErrorCode: "E0007", IncidentID: "i2", Retry: "may_help"}),
			"2 distinct xla.oom.incident.id"},
		"a warning miscounts its attempts": {failed, Observed{Records: []Record{{Body: attemptLine, WarningKind: AttemptWarning, Requested: 63763906560, HasRequested: true, Attempts: 2}, step, failure}, Incidents: 1, AttemptWarnings: 1},
			"warning's xla.oom.attempts is not the number of attempt lines"},
		"an attempt of another size is not counted": {failed, Observed{Records: []Record{step, {Body: attemptLine + "\n" + failureLine, ErrorCode: "E0007", Requested: 25000000000, HasRequested: true, IncidentID: "i1"}, step}, Incidents: 1},
			"xla.oom.attempts is not the number of attempt lines"},
		"a failure miscounts its attempts": {failed, Observed{Records: []Record{step, {Body: attemptLine + "\n" + failureLine, ErrorCode: "E0007", Requested: 25000000000, HasRequested: true, IncidentID: "i1"}, step}, Incidents: 1},
			"xla.oom.attempts is not the number of attempt lines"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := Check(c.job, log, c.obs)
			assert.NotEmpty(t, r.Problems)
			assert.Contains(t, strings.Join(r.Problems, "\n"), c.want)
		})
	}
}

// The refusal of the very request that failed may be the failure itself
// (cudaMallocAsync's log-only failure) or an attempt inside the failure's
// record (the platform allocator's driver call before its status).
func TestCheckRefusalOfTheFailingRequest(t *testing.T) {
	refusal := `E1126 11:18:01.034840    2708 gpu_cudamallocasync_allocator.cc:366] gpu_async_0 cuMemAllocAsync failed to allocate 12000000000 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory`
	job := Job{Name: "j", Failed: true, ReturnCode: 1, FailingRequest: 12000000000}
	for _, counted := range []int64{0, 1} {
		st := Record{Body: refusal, ErrorCode: "E0007", Requested: 12000000000, HasRequested: true, IncidentID: "i", Attempts: counted, Retry: "may_help"}
		r := Check(job, refusal+"\n", withFailure(Observed{Records: []Record{st}, Incidents: 1}, st))
		assert.Empty(t, r.Problems, "counted %d", counted)
		assert.Equal(t, int(1-counted), r.FailingRefusals)
	}
	other := job
	other.FailingRequest = 25000000000
	obs := Observed{Records: []Record{{Body: refusal, ErrorCode: "E0007", Requested: 25000000000, HasRequested: true, IncidentID: "i"}}, Incidents: 1}
	assert.Contains(t, strings.Join(Check(other, refusal+"\n", obs).Problems, "\n"), "is not the number of attempt lines it holds")
}

// A job that ran on after catching its own OOM: its statement names a
// failure that went on and has no record, which is right; a failure record
// would page for a job that did not fail.
func TestCheckCaughtOOM(t *testing.T) {
	job := Job{Name: "caught"}
	log := failureLine + "\n"
	st := Record{Body: failureLine, ErrorCode: "E0007", FailureID: "f", IncidentID: "i", Retry: "unknown"}
	assert.Empty(t, Check(job, log, Observed{Records: []Record{st}}).Problems)
	paged := Check(job, log, withFailure(Observed{Records: []Record{st}, Incidents: 1}, st)).Problems
	assert.Contains(t, strings.Join(paged, "\n"), "1 failure records (xla.oom.failure), want 0")
	assert.Contains(t, strings.Join(paged, "\n"), "xla.oom.incidents = 1, want 0")
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteTable(&b, []Result{{Job: Job{Name: "j", Failed: true, ReturnCode: 1, FailingRequest: 25000000000}, WantIncidents: 1, Incidents: 1, Requested: []int64{25000000000},
		Retries: []string{"may_help"}, ExplainRetry: "may_help"}}))
	assert.Contains(t, b.String(), "25000000000 (23.28 GiB)")
	assert.Contains(t, b.String(), "may_help (may_help)")
	assert.Contains(t, b.String(), "j ")
}

// withFailure adds the failure record the processor makes of a failure
// stated by st, after obs's records.
func withFailure(obs Observed, st Record) Observed {
	f := st
	f.Body, f.Event, f.FailureID = "", oomattr.EventFailure, "f1"
	obs.Records = append(slices.Clone(obs.Records), f)
	return obs
}

// TestCheckRetry: each way of getting a failure's verdict wrong is reported.
func TestCheckRetry(t *testing.T) {
	held := Job{Name: "j", Failed: true, ReturnCode: 1, HeldElsewhere: true}
	own := Job{Name: "k", Failed: true, ReturnCode: 1}
	log := attemptLine + "\n" + failureLine + "\n"
	attempt := Record{Body: attemptLine, WarningKind: AttemptWarning, Requested: 63763906560, HasRequested: true}
	failure := func(retry string) Record {
		return Record{Body: failureLine, ErrorCode: "E0007", Requested: 25000000000, HasRequested: true, IncidentID: "i1", Retry: retry}
	}
	obs := func(retry, explain string, labels map[string]int64) Observed {
		return withFailure(Observed{Records: []Record{attempt, failure(retry)}, Incidents: 1, AttemptWarnings: 1, IncidentsByRetry: labels, ExplainRetry: explain}, failure(retry))
	}
	mayHelp, unknown := map[string]int64{"may_help": 1}, map[string]int64{"unknown": 1}
	assert.Empty(t, Check(held, log, obs("may_help", "may_help", mayHelp)).Problems)
	assert.Empty(t, Check(own, log, obs("unknown", "unknown", unknown)).Problems)
	assert.Empty(t, Check(own, log, obs("unknown", "", unknown)).Problems, "explain not asked")

	for name, c := range map[string]struct {
		job  Job
		obs  Observed
		want string
	}{
		"no verdict":                         {own, obs("", "", map[string]int64{"": 1}), `xla.oom.retry is "", not a verdict`},
		"held elsewhere, unknown":            {held, obs("unknown", "unknown", unknown), "a failure record's xla.oom.retry is unknown, not may_help"},
		"held elsewhere, connector unknown":  {held, obs("may_help", "may_help", unknown), "labels 0 of its 1 incidents may_help"},
		"not explain's":                      {own, obs("futile", "unknown", map[string]int64{"futile": 1}), "the failure record's verdict is futile, xlaoom explain's unknown"},
		"the connector's label is not there": {own, obs("unknown", "unknown", map[string]int64{"futile": 1}), `with xla.oom.retry="futile", which no failure record carries`},
		"a warning with a verdict": {own, Observed{Records: []Record{{Body: attemptLine, WarningKind: AttemptWarning, Requested: 63763906560, HasRequested: true, Retry: "unknown"}, failure("unknown")},
			Incidents: 1, AttemptWarnings: 1, IncidentsByRetry: unknown}, "a record that is not a failure carries xla.oom.retry"},
		"no failure record":    {own, Observed{Records: []Record{attempt, failure("unknown")}, Incidents: 1, AttemptWarnings: 1, IncidentsByRetry: unknown}, "0 failure records (xla.oom.failure), want 1"},
		"repeats, not futile":  {Job{Name: "r", Failed: true, ReturnCode: 1, Repeats: true}, obs("unknown", "", unknown), "a restart repeats the failure, but the failure record's verdict is unknown"},
		"held, failure futile": {held, withFailure(Observed{Records: []Record{attempt, failure("may_help")}, Incidents: 1, AttemptWarnings: 1, IncidentsByRetry: mayHelp}, failure("futile")), "memory was held outside the program, but the failure record's verdict is futile"},
		"wrong holder":         {Job{Name: "h", Failed: true, ReturnCode: 1, Holder: "jit_step"}, obs("unknown", "", unknown), `names holder "", the manifest "jit_step"`},
		"wrong site":           {Job{Name: "s", Failed: true, ReturnCode: 1, Site: Site{File: "train.py", Line: 3}}, obs("unknown", "", unknown), "the failure record's site is"},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Contains(t, strings.Join(Check(c.job, log, c.obs).Problems, "\n"), c.want)
		})
	}
}

// The manifest's jobs that failed while memory was held outside their
// program: a holder process, a second job on the GPU, a library in the same
// process.
func TestHeldElsewhereReal(t *testing.T) {
	jobs, err := ReadJobs(realJobs)
	require.NoError(t, err)
	var held []string
	for _, j := range jobs {
		if j.Failed && j.HeldElsewhere {
			held = append(held, j.Name)
		}
	}
	assert.Equal(t, []string{"cuda_async_near_full_oom", "cupy_then_jax_oom", "platform_near_full_oom", "prealloc_false_leak_oom",
		"shared_gpu_backoff_then_oom", "two_jobs_second"}, held)
}
