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

	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

// TestOnePath: every fixture, through the processor fed the agent's
// records and through explain (the same stage on a file), states the same
// failures.
func TestOnePath(t *testing.T) {
	total := 0
	for _, set := range inputSets {
		for _, name := range inputFiles(t, set) {
			path := filepath.Join(set.dir, name)
			_, grouped := processRecords(t, readRecords(t, path))
			var stdout bytes.Buffer
			Main([]string{"explain", "--json", path}, nil, &stdout, new(bytes.Buffer))
			explained := 0
			for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
				var f jsonFinding
				if line == "" || json.Unmarshal([]byte(line), &f) != nil {
					continue
				}
				if closed, ok := f.Attributes[oomattr.FailureClosed]; ok && closed != string(failure.ClosedWentOn) {
					explained++
				}
			}
			total += explained
			assert.Len(t, grouped, explained, "%s: the agent's records", path)
		}
	}
	assert.Greater(t, total, 20)
}
