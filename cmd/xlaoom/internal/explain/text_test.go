// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"strings"
	"testing"
)

// TestSummaryHostKill: the summary line of a log holding only a futile
// host-memory kill says so, as the exit status does, before it counts no
// XLA failure.
func TestSummaryHostKill(t *testing.T) {
	var out, errOut bytes.Buffer
	status := Main([]string{"explain", realKill}, nil, &out, &errOut)
	summaries := strings.Count(out.String(), "summary: ")
	want := "summary: 1 host-memory kill (not an XLA failure; the last futile: a restart fails the same way), 0 OOM failures, 0 memory warnings in "
	if status != ExitFutile || summaries != 1 || !strings.Contains(out.String(), want) {
		t.Errorf("status %d, %d summary lines, want %d and one line with %q:\n%s", status, summaries, ExitFutile, want, out.String())
	}
}

// TestSummaryNoHostKill: without kills the line is as it always was.
func TestSummaryNoHostKill(t *testing.T) {
	var out bytes.Buffer
	if err := summary(&out, &Totals{Failures: 2, Records: 3, Bytes: 100, Inputs: 1}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "summary: 2 OOM failures, 0 memory warnings in 3 records (100 B) from 1 input\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
