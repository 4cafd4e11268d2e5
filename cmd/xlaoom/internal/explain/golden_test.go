// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -update rewrites the expected golden files from the current output. Review
// the diff before committing it.
var update = flag.Bool("update", false, "rewrite golden files")

// inputSet is a set of logs, named by a glob in a directory.
type inputSet struct {
	name string
	dir  string
	glob string
	skip string // a suffix of files the glob names that are not in the set
}

// inputSets are the logs the golden and the processor tests read: the
// sample logs of `make run` (copied from distribution/demo/logs), the real
// GPU captures of oom/testdata/real and the whole job logs of
// oom/testdata/jobs.
var inputSets = []inputSet{
	{name: "demo", dir: "testdata/demo", glob: "*/*.log"},
	{name: "real", dir: "../../../../oom/testdata/real", glob: "*.txt"},
	jobsSet,
}

// jobsSet are whole job logs of real jobs (oom/testdata/jobs/README.md),
// without the logs of the processes that held GPU memory beside them.
var jobsSet = inputSet{name: "jobs", dir: "../../../../oom/testdata/jobs", glob: "*.log", skip: ".holder.log"}

// inputFiles lists a set's files relative to its directory, sorted.
func inputFiles(t *testing.T, set inputSet) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(set.dir, set.glob))
	require.NoError(t, err)
	var files []string
	for _, p := range paths {
		if set.skip != "" && strings.HasSuffix(p, set.skip) {
			continue
		}
		rel, err := filepath.Rel(set.dir, p)
		require.NoError(t, err)
		files = append(files, rel)
	}
	require.NotEmpty(t, files)
	return files
}

func TestGolden(t *testing.T) {
	for _, set := range inputSets {
		for _, mode := range []struct{ ext, flag string }{{ext: ".txt"}, {ext: ".jsonl", flag: "--json"}} {
			t.Run(set.name+mode.ext, func(t *testing.T) {
				golden, err := filepath.Abs(filepath.Join("testdata", "golden", set.name+mode.ext))
				require.NoError(t, err)
				files := inputFiles(t, set)
				t.Chdir(set.dir) // findings name the files as given: relative, the same on every machine

				args := []string{"explain"}
				if mode.flag != "" {
					args = append(args, mode.flag)
				}
				var stdout, stderr bytes.Buffer
				status := Main(append(args, files...), strings.NewReader(""), &stdout, &stderr)
				assert.Contains(t, []int{ExitFound, ExitFutile}, status, "every set holds OOMs")
				if mode.flag == "" {
					assert.Empty(t, stderr.String())
					assert.Contains(t, stdout.String(), "\nsummary: ")
				} else {
					assert.True(t, strings.HasPrefix(stderr.String(), "summary: "), "--json: the summary goes to stderr, got %q", stderr.String())
					assert.NotContains(t, stdout.String(), "summary: ")
				}
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
					require.NoError(t, os.WriteFile(golden, stdout.Bytes(), 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err)
				assert.Equal(t, string(want), stdout.String(), "run go test ./cmd/xlaoom/internal/explain -update and read the diff")
			})
		}
	}
}

// TestDocsExample keeps the example in docs/explain.md what the command
// prints today.
func TestDocsExample(t *testing.T) {
	docsExample(t, "oom/testdata/real/jit_temps.stderr.txt")
}

// docsExample checks that docs/explain.md shows what `xlaoom explain input`
// prints, in the code block after the command.
func docsExample(t *testing.T, input string) {
	t.Helper()
	command := "$ bin/xlaoom explain " + input + "\n"
	page, err := os.ReadFile("../../../../docs/explain.md")
	require.NoError(t, err)
	_, example, ok := strings.Cut(string(page), command)
	require.True(t, ok, "docs/explain.md shows %q", command)
	example, _, ok = strings.Cut(example, "```")
	require.True(t, ok)

	t.Chdir("../../../..")
	var stdout bytes.Buffer
	Main([]string{"explain", input}, nil, &stdout, new(bytes.Buffer))
	assert.Equal(t, stdout.String(), example, "paste the new output into docs/explain.md")
}
