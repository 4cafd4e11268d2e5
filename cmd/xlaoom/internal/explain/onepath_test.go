// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"encoding/json"
	"math"
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

// hostSet are the host-memory kills of hostoom's tests.
var hostSet = inputSet{name: "host", dir: "../../../../hostoom/testdata", glob: "*.txt"}

// explained is what explain --json reports of one file: its failures, the
// lines of the records that state them (and those of the OOMs a program
// went on after), and each kill's attributes.
type explained struct {
	failures   int
	statements [][]int
	kills      []map[string]any
}

func explainFile(t *testing.T, path string) explained {
	t.Helper()
	var stdout bytes.Buffer
	Main([]string{"explain", "--json", path}, nil, &stdout, new(bytes.Buffer))
	var e explained
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
			if closed != string(failure.ClosedWentOn) {
				e.failures++
			}
		}
	}
	return e
}

// processed is what the processor wrote on one file's records.
type processed struct {
	failures   int
	statements map[int]bool     // the lines of the records that state a failure
	kills      []map[string]any // the attributes of the records that carry a kill
}

func processFile(t *testing.T, recs []record) processed {
	t.Helper()
	lrs, failures := processRecords(t, recs)
	out := processed{failures: len(failures), statements: map[int]bool{}}
	for i, r := range recs {
		attrs := lrs.At(i).Attributes()
		if _, ok := attrs.Get(oomattr.FailureID); ok {
			out.statements[r.line] = true
		}
		if oomattr.HostKilled(attrs) {
			out.kills = append(out.kills, viaJSON(t, attrs.AsRaw()))
		}
	}
	return out
}

// TestOnePath: every fixture, through the processor fed the agent's
// records and fed line by line, and through explain (the same stage on a
// file), states the same failures in the same records and the same kills.
func TestOnePath(t *testing.T) {
	failures, kills := 0, 0
	for _, set := range append([]inputSet{hostSet}, inputSets...) {
		for _, name := range inputFiles(t, set) {
			path := filepath.Join(set.dir, name)
			want := explainFile(t, path)
			failures += want.failures
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
				compareKills(t, path+", "+feed.name, want.kills, got.kills)
			}
		}
	}
	assert.Greater(t, failures, 20)
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
