// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demorun

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The runner's records are file_log's: one per log header with its
// continuation lines, dated by the header, host and job from the path, the
// file attributes; sent in the order they were logged across files.
func TestLogsOf(t *testing.T) {
	dir := t.TempDir()
	write := func(host, job, text string) string {
		p := filepath.Join(dir, host, job+".log")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("tpu-0", "train", "I0912 07:00:01.5 start\nE0912 07:00:03 failed\nTraceback (most recent call last):\n  boom   \n")
	b := write("tpu-1", "train", "I0912 07:00:02 start\n")
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	ld, n, err := logsOf([]string{b, a}, 2026, now)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || ld.LogRecordCount() != 3 {
		t.Fatalf("%d records (%d in the logs), want 3", n, ld.LogRecordCount())
	}
	type rec struct{ host, job, body, file, at string }
	want := []rec{
		{"tpu-0", "train", "I0912 07:00:01.5 start", a, "2026-09-12T07:00:01.5Z"},
		{"tpu-1", "train", "I0912 07:00:02 start", b, "2026-09-12T07:00:02Z"},
		{"tpu-0", "train", "E0912 07:00:03 failed\nTraceback (most recent call last):\n  boom", a, "2026-09-12T07:00:03Z"},
	}
	var got []rec
	for _, rl := range ld.ResourceLogs().All() {
		host, _ := rl.Resource().Attributes().Get("host.name")
		job, _ := rl.Resource().Attributes().Get("service.name")
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				path, _ := lr.Attributes().Get("log.file.path")
				name, _ := lr.Attributes().Get("log.file.name")
				if name.Str() != filepath.Base(path.Str()) || !lr.ObservedTimestamp().AsTime().Equal(now) {
					t.Errorf("log.file.name %q of %q, observed %s", name.Str(), path.Str(), lr.ObservedTimestamp())
				}
				got = append(got, rec{host.Str(), job.Str(), lr.Body().Str(), path.Str(), lr.Timestamp().AsTime().Format(time.RFC3339Nano)})
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
}
