// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

var lineStartRegexp = regexp.MustCompile(oom.LineStart)

// edgeLines are lines near the pattern's edges.
var edgeLines = []string{
	"E0912 07:01:12.118224 27487 a.cc:1] x", "F0912 07:01:12", "I0912 07:01:1", "X0912 07:01:12", "E912 07:01:12",
	"2025-09-12 07:00:03.771234: I external/xla/xla/service/service.cc:163] x", "2025-09-12T07:00:03Z", "2025-09-12x07:00:03",
	"2025-09-1 07:00:03", "ERROR 09-12 07:23:02 [core.py:700] x", "INFO 09-12 07:23:0", "WARN 09-12 07:23:02", "CRITICAL 09-12 07:23:02",
	"DEBUG 09-12 07:23:02", "WARNING 09-12 07:23:02", "INFO0912 07:23:02", "I0912 07:23:02INFO",
	"(EngineCore_DP0 pid=896988) ERROR 09-12 07:23:02 [core.py:700] x", "(EngineCore_DP0 pid=896988) I0912 07:01:12",
	"(EngineCore_DP0 pid=) ERROR 09-12 07:23:02", "( pid=1) ERROR 09-12 07:23:02", "(a-b pid=1) ERROR 09-12 07:23:02",
	"(RayWorker pid=12)ERROR 09-12 07:23:02", "(RayWorker pid=12) Traceback", "(RayWorker pid=12) ", "(", "", " E0912 07:01:12",
	"Traceback (most recent call last):", "\tBuffer 1:", "E0912 ０7:01:12",
}

// TestStartsRecordIsLineStart checks the hand-written matcher against the
// pattern the agent groups lines with, on every line of the samples, the
// real captures, the benchmark traffic and the edge cases above.
func TestStartsRecordIsLineStart(t *testing.T) {
	lines := append([]string(nil), edgeLines...)
	for _, glob := range []string{"../cmd/xlaoom/internal/explain/testdata/demo/*/*.log", "testdata/real/*.txt"} {
		files, err := filepath.Glob(glob)
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			lines = append(lines, strings.Split(string(b), "\n")...)
		}
	}
	g := workload.New(workload.DefaultConfig())
	for range 20000 {
		lines = append(lines, strings.Split(g.Line().Text, "\n")...)
	}
	starts := 0
	for _, l := range lines {
		want := lineStartRegexp.MatchString(l)
		if want {
			starts++
		}
		assert.Equal(t, want, oom.StartsRecord(l), "%q", l)
	}
	assert.Greater(t, starts, 1000)
	assert.Less(t, starts, len(lines))
}

func FuzzStartsRecord(f *testing.F) {
	for _, l := range edgeLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			t.Skip("one line at a time")
		}
		if got, want := oom.StartsRecord(string(line)), lineStartRegexp.Match(line); got != want {
			t.Fatalf("oom.StartsRecord(%q) = %v, the pattern says %v", line, got, want)
		}
	})
}

// TestLineStartIsTheAgentOne checks that the agent configs group lines with
// this very pattern: file_log's multiline.line_start_pattern, and the
// recombine operator's is_first_entry for container logs (a quoted string
// there, so its backslashes are doubled).
func TestLineStartIsTheAgentOne(t *testing.T) {
	multiline := "line_start_pattern: '" + oom.LineStart + "'"
	recombine := `is_first_entry: 'body matches "` + strings.ReplaceAll(oom.LineStart, `\`, `\\`) + `"'`
	for _, tt := range []struct {
		file string
		want []string
	}{
		{"../examples/agent.yaml", []string{multiline, recombine}},
		{"../examples/all-in-one.yaml", []string{multiline}},
		{"../deploy/helm/agent-values.yaml", []string{recombine}},
	} {
		b, err := os.ReadFile(tt.file)
		require.NoError(t, err)
		for _, w := range tt.want {
			assert.Contains(t, string(b), w, tt.file)
		}
	}
}
