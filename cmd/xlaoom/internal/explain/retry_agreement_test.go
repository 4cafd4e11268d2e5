// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

// TestEveryFailureRecordHasItsFindingsVerdict: on every sample, real capture
// and job log, each record the processor tags as a failure carries in
// xla.oom.retry the verdict xlaoom explain gives the finding that gathers
// it. A failure logged as several records (the allocator's line with the
// sizes, then the exception) has one verdict, whichever record a user
// filters on or the connector counts.
func TestEveryFailureRecordHasItsFindingsVerdict(t *testing.T) {
	checked, later := 0, 0 // later: records after the first of their finding
	for _, set := range inputSets {
		for _, name := range inputFiles(t, set) {
			path := filepath.Join(set.dir, name)
			recs := readRecords(t, path)
			processed := processRecords(t, recs)
			var stdout bytes.Buffer
			Main([]string{"explain", "--json", path}, nil, &stdout, new(bytes.Buffer))
			verdict := map[int]string{} // the finding's verdict by the line of each failure record it gathered
			first := map[int]bool{}     // the lines that open a finding
			for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
				var f jsonFinding
				if line == "" {
					continue
				}
				require.NoError(t, json.Unmarshal([]byte(line), &f), line)
				if f.Severity != "ERROR" {
					continue
				}
				first[f.Line] = true
				for _, l := range f.Records {
					verdict[l] = f.Retry
				}
			}
			for i, r := range recs {
				attrs := processed.At(i).Attributes()
				if _, failure := attrs.Get(oomattr.ErrorCode); !failure {
					continue
				}
				want, found := verdict[r.line]
				if !assert.True(t, found, "%s:%d: a failure record in no finding", path, r.line) {
					continue
				}
				got, _ := attrs.Get(oomattr.Retry)
				assert.Equal(t, want, got.AsString(), "%s:%d: the record's %s and its finding's verdict", path, r.line, oomattr.Retry)
				checked++
				if !first[r.line] {
					later++
				}
			}
		}
	}
	t.Logf("%d failure records, %d of them after the first of their failure", checked, later)
	assert.Greater(t, checked, 50, "the samples, captures and job logs hold many failure records")
	assert.Greater(t, later, 10, "and failures stated by several records")
}
