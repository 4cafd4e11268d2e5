// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

const (
	bfcOOM    = "E0912 07:02:44.350251   27487 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes.\n"
	remat     = "W0912 07:00:31.224101   27487 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 58.44GiB (62750982717 bytes), down from 61.02GiB (65520000000 bytes) originally\n"
	ordinary  = "I0912 07:01:44.001291   27487 train.py:201] step=400 loss=3.0172 lr=1.0e-04\n"
	lookAlike = "W0912 07:05:30.118774   27487 metrics_client.py:88] Push to metrics gateway failed: StatusCode.RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Write requests'\n"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	oomLog := write("oom.log", []byte(ordinary+remat+bfcOOM+lookAlike))
	quiet := write("quiet.log", []byte(ordinary+lookAlike))
	empty := write("empty.log", nil)
	binary := write("core", append([]byte("ELF\x00\x01"), bfcOOM...))
	latin1 := write("latin1.log", []byte("I0912 07:01:44 caf\xe9\n"+bfcOOM))
	gz := write("oom.log.gz", gzipped(t, bfcOOM))
	badGz := write("bad.log.gz", gzipped(t, bfcOOM)[:20])
	huge := write("huge.log", []byte(bfcOOM+strings.Repeat("x", maxScanSize)+"\n"+bfcOOM))

	tests := []struct {
		name       string
		args       []string
		stdin      string
		status     int
		stdout     []string // substrings
		stderr     []string
		noStdout   bool
		jsonStdout bool
	}{
		{name: "a failure and a warning", args: []string{"explain", oomLog}, status: ExitFound,
			stdout: []string{oomLog + ":2: memory warning rematerialization (not an OOM)", oomLog + ":3: E0007 ResourceExhausted",
				"requested           1.97 GiB (2110783616 bytes)", "summary: 1 OOM failure, 1 memory warning in 4 records"}},
		{name: "warnings are not OOMs", args: []string{"explain"}, stdin: remat + ordinary, status: ExitNone,
			stdout: []string{"stdin:1: memory warning", "summary: 0 OOM failures, 1 memory warning in 2 records"}},
		{name: "nothing found", args: []string{"explain", quiet}, status: ExitNone, stdout: []string{"summary: 0 OOM failures, 0 memory warnings in 2 records"}},
		{name: "- is stdin", args: []string{"explain", "-", quiet}, stdin: bfcOOM, status: ExitFound,
			stdout: []string{"stdin:1: E0007", "from 2 inputs"}},
		{name: "--json after the file", args: []string{"explain", oomLog, "--json"}, status: ExitFound, jsonStdout: true,
			stdout: []string{`"xla.error.code":"E0007"`, `"xla.memory.warning":"rematerialization"`}, stderr: []string{"summary: 1 OOM failure"}},
		{name: "after -- every argument is a file", args: []string{"explain", "--", "--json"}, status: ExitError,
			stderr: []string{"xlaoom: --json: no such file"}},
		{name: "missing file", args: []string{"explain", filepath.Join(dir, "nope.log"), oomLog}, status: ExitError,
			stdout: []string{"E0007", "1 input could not be read"}, stderr: []string{"nope.log: no such file"}},
		{name: "directory", args: []string{"explain", dir}, status: ExitError, stderr: []string{dir + ": is a directory: name the log files in it, e.g. " + dir + "/*.log"}},
		{name: "empty file", args: []string{"explain", empty}, status: ExitNone, stderr: []string{"empty.log: empty, nothing to explain"}},
		{name: "empty stdin", args: []string{"explain"}, status: ExitNone, stderr: []string{"stdin: empty, nothing to explain"}},
		{name: "whitespace only", args: []string{"explain"}, stdin: "\n \n", status: ExitNone, stderr: []string{"stdin: empty, nothing to explain"}},
		{name: "binary", args: []string{"explain", binary}, status: ExitError, stderr: []string{"core: binary data (a NUL byte at offset 3), not a text log; skipped"}},
		{name: "invalid UTF-8 is read as the agent reads it", args: []string{"explain", latin1}, status: ExitFound,
			stdout: []string{latin1 + ":2: E0007"}, stderr: []string{"latin1.log: not valid UTF-8 (first seen at line 1); invalid bytes are read as U+FFFD"}},
		{name: "invalid UTF-8 in an OOM record past the start", args: []string{"explain"}, stdin: strings.Repeat(ordinary, 200) + "E0912 07:02:44 caf\xe9: " + bfcOOM[15:],
			status: ExitFound, stdout: []string{"stdin:201: E0007"}, stderr: []string{"stdin: not valid UTF-8 (first seen at line 201)"}},
		{name: "gzip", args: []string{"explain", gz}, status: ExitFound, stdout: []string{gz + ":1: E0007"}},
		{name: "truncated gzip", args: []string{"explain", badGz}, status: ExitError, stderr: []string{"bad.log.gz: gzip: unexpected EOF"}},
		{name: "a record over max_scan_size is not read", args: []string{"explain", huge}, status: ExitFound,
			stdout: []string{huge + ":3: E0007", "summary: 1 OOM failure, 0 memory warnings in 2 records", "1 record over 1.00 MiB not read, as the processor passes such records unchanged"}},
		{name: "unknown flag", args: []string{"explain", "--jsn"}, status: ExitError, stderr: []string{"flag provided but not defined: -jsn", "Usage: xlaoom explain"}, noStdout: true},
		{name: "help", args: []string{"explain", "-h"}, status: ExitNone, stdout: []string{"Usage: xlaoom explain [--json] [FILE...]",
			"A host-memory kill is the kernel's OOM killer", `"dmesg", "journalctl -k"`,
			"1  an OOM failure or a host-memory kill found", "or the last host-memory kill, is futile"}},
		{name: "no command", status: ExitError, stderr: []string{"Usage: xlaoom explain"}, noStdout: true},
		{name: "unknown command", args: []string{"explian"}, status: ExitError, stderr: []string{`unknown command "explian"`}, noStdout: true},
		{name: "version", args: []string{"--version"}, status: ExitNone, stdout: []string{"xlaoom "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := Main(tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			assert.Equal(t, tt.status, status, "stderr: %s", stderr.String())
			for _, s := range tt.stdout {
				assert.Contains(t, stdout.String(), s)
			}
			for _, s := range tt.stderr {
				assert.Contains(t, stderr.String(), s)
			}
			if tt.noStdout {
				assert.Empty(t, stdout.String())
			}
			if tt.jsonStdout {
				for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
					assert.True(t, json.Valid([]byte(line)), line)
				}
			}
		})
	}
}

type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, errors.New("write |1: broken pipe") }

// TestOutputError: when the findings cannot be written, explain stops and
// says so, rather than blaming the input.
func TestOutputError(t *testing.T) {
	var stderr bytes.Buffer
	status := Main([]string{"explain", "-", "-"}, strings.NewReader(bfcOOM), brokenPipe{}, &stderr)
	assert.Equal(t, ExitError, status)
	assert.Equal(t, "xlaoom: write |1: broken pipe\n", stderr.String())
}

// TestGenericFinding: a memory failure that only the last-resort layer
// recognises is said to be no known family, with how to report it.
func TestGenericFinding(t *testing.T) {
	w := &assembly.Failure{Report: oom.Report{Code: "E0007", Name: "ResourceExhausted", Category: "Resource Exhausted: Out of Memory",
		Family: oom.FamilyGeneric, Remediation: []string{"Reduce the batch size."}}}
	attrs := pcommon.NewMap()
	oomattr.PutFailure(w, attrs, topAllocations)
	f := &Finding{Source: "job.log", Line: 7, Report: &w.Report, Whole: w, Attributes: attrs}
	require.True(t, f.Generic())
	var out bytes.Buffer
	require.NoError(t, (&textPrinter{w: &out}).finding(f))
	assert.Contains(t, out.String(), "job.log:7: E0007 ResourceExhausted: memory failure, not a known family\n")
	assert.Contains(t, out.String(), "  report              "+reportHint+"\n")
	assert.NotContains(t, out.String(), "family ")

	var tot Totals
	tot.count(f)
	tot.count(&Finding{Report: &oom.Report{Family: "gpu-bfc-allocator"}})
	out.Reset()
	require.NoError(t, summary(&out, &tot))
	assert.Contains(t, out.String(), "summary: 2 OOM failures (1 not a known family), 0 memory warnings")
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1023: "1023 bytes", -6: "-6 bytes", 1024: "1.00 KiB (1024 bytes)",
		2110783616: "1.97 GiB (2110783616 bytes)", -1610612736: "-1.50 GiB (-1610612736 bytes)",
		-9223372036854775808: "-8.00 EiB (-9223372036854775808 bytes)",
	} {
		assert.Equal(t, want, sizeText(n))
	}
}

// FuzzExplain: whatever the input, explain neither panics nor writes
// anything but JSON lines with --json, and its status is one of three.
func FuzzExplain(f *testing.F) {
	for _, s := range []string{bfcOOM, remat + bfcOOM, ordinary + lookAlike, "\x00", "\xff\xfe", "2025-09-12T07:01:12Z stderr P " + bfcOOM} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("testdata/demo/*/*.log")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, args := range [][]string{{"explain"}, {"explain", "--json"}} {
			var stdout, stderr bytes.Buffer
			status := Main(args, bytes.NewReader(in), &stdout, &stderr)
			if status != ExitNone && status != ExitFound && status != ExitError && status != ExitFutile {
				t.Fatalf("status %d", status)
			}
			if len(args) == 2 && stdout.Len() > 0 {
				for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
					if !json.Valid([]byte(line)) {
						t.Fatalf("not a JSON line: %q", line)
					}
				}
			}
		}
	})
}
