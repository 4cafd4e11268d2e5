// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/jobcheck"
)

var (
	failureHeader = regexp.MustCompile(`(?m)^\S+:\d+: E\d{4} \w+: (?:XLA|memory failure)`)
	summaryCounts = regexp.MustCompile(`summary: (\d+) OOM failures?(?: \(\d+ not a known family\))?(?:, \d+ OOMs? caught by the program)?, (\d+) memory warnings?(?:, (\d+) allocation attempts?)?`)
	backOffLine   = regexp.MustCompile(`Failed to allocate (?:device|host|collective) memory of `)
)

// TestJobs reads every whole job log of oom/testdata/jobs as a user would and
// checks per job what explain says: one failure finding for a job that
// failed and none for one that ran to exit 0, all of its allocation attempts
// counted and none as a failure, a back-off named as one, and, for a job
// whose attempts no failure followed, one warning.
func TestJobs(t *testing.T) {
	jobs, err := jobcheck.ReadJobs(jobsSet.dir)
	require.NoError(t, err)
	for _, job := range jobs {
		if strings.HasSuffix(job.Name, ".holder") {
			continue // the process that held memory: no XLA in it
		}
		t.Run(job.Name, func(t *testing.T) {
			path := job.Log
			log, err := os.ReadFile(path)
			require.NoError(t, err)
			// The attempts, but for the refusal of the very request that
			// failed, which is the failure.
			attempts, backOff := 0, 0
			lines := strings.Split(string(log), "\n")
			for _, a := range jobcheck.Attempts(string(log)) {
				if job.FailingRequest == 0 || a.Bytes != job.FailingRequest {
					attempts++
					if backOffLine.MatchString(lines[a.Line-1]) {
						backOff++
					}
				}
			}

			var stdout, stderr bytes.Buffer
			status := Main([]string{"explain", path}, nil, &stdout, &stderr)
			out := stdout.String()
			assert.Empty(t, stderr.String())
			counts := summaryCounts.FindStringSubmatch(out)
			require.NotNil(t, counts, out)
			failures := len(failureHeader.FindAllString(out, -1))
			assert.Equal(t, counts[1], strconv.Itoa(failures), "the summary counts the failure findings")

			wantFailures := 0
			if job.Failed {
				wantFailures = 1
			}
			assert.Equal(t, wantFailures, failures, "failure findings:\n%s", out)
			wantStatus := map[bool]int{true: ExitFound, false: ExitNone}[wantFailures > 0]
			if job.Repeats {
				wantStatus = ExitFutile // its failure's verdict, decided on the whole failure
			}
			assert.Equal(t, wantStatus, status)

			gotAttempts := 0
			if counts[3] != "" {
				gotAttempts, _ = strconv.Atoi(counts[3])
			}
			assert.Equal(t, attempts, gotAttempts, "allocation attempts in the summary")
			warnings := strings.Count(out, ": memory warning allocation_attempt ")
			switch {
			case attempts > 0 && wantFailures == 0:
				assert.Equal(t, 1, warnings, "the attempts no failure followed are one warning:\n%s", out)
			case attempts > 0:
				assert.Contains(t, out, "  attempts            after ", "the failure says what it came after")
			default:
				assert.Zero(t, warnings)
			}
			if backOff >= 2 { // StreamExecutor's pool set-up and growth back off at 0.9 per step
				assert.Contains(t, out, " pool back-off steps from ", out)
			}
		})
	}
}
