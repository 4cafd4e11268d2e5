// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

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

// TestOnePath: every fixture, through the processor fed the agent's
// records and fed line by line, and through explain (the same stage on a
// file), states the same failures.
func TestOnePath(t *testing.T) {
	total := 0
	for _, set := range inputSets {
		for _, name := range inputFiles(t, set) {
			path := filepath.Join(set.dir, name)
			_, grouped := processRecords(t, readRecords(t, path))
			_, byLine := processRecords(t, lineRecords(t, path))
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
			if !splitException[name] {
				assert.Len(t, byLine, explained, "%s: line by line", path)
			}
		}
	}
	assert.Greater(t, total, 20)
}
