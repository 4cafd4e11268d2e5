// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demorun

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// The incident table shows each incident's retry verdict (xla.oom.retry),
// and a dash for a record that carries none (a collector before it).
func TestIncidentTableShowsRetryVerdict(t *testing.T) {
	at := time.Date(2026, 9, 12, 7, 1, 12, 0, time.UTC)
	record := func(host, id, code, retry string, after time.Duration) records.Record {
		r := records.Record{Resource: pcommon.NewMap(), Attributes: pcommon.NewMap(), Time: at.Add(after)}
		r.Resource.PutStr("service.name", "trainer")
		r.Resource.PutStr("host.name", host)
		r.Attributes.PutStr("xla.error.code", code)
		r.Attributes.PutStr("xla.oom.incident.id", id)
		if retry != "" {
			r.Attributes.PutStr("xla.oom.retry", retry)
		}
		return r
	}
	recs := []records.Record{
		record("tpu-0", "a", "E1000", "futile", 0),
		record("tpu-1", "a", "E1000", "futile", time.Second),
		record("gpu-0", "b", "E0007", "may_help", time.Minute),
		record("gpu-0", "c", "E0100", "", 2*time.Minute),
	}
	var out strings.Builder
	printIncidents(&out, recs, groupIncidents(recs))
	for _, row := range []string{
		`(?m)^1 +09-12 07:01:12 +trainer +tpu-0,tpu-1 +E1000 .* futile +2$`,
		`(?m)^2 +09-12 07:02:12 +trainer +gpu-0 +E0007 .* may_help +1$`,
		`(?m)^3 +09-12 07:03:12 +trainer +gpu-0 +E0100 .* - +1$`,
		`(?m)^# +TIME .* RETRY +RECORDS$`,
	} {
		if !regexp.MustCompile(row).MatchString(out.String()) {
			t.Errorf("the table has no row %s:\n%s", row, out.String())
		}
	}
}

// newRecord is a record of job trainer on host at, with attrs.
func newRecord(host string, at time.Time, attrs map[string]any) records.Record {
	r := records.Record{Resource: pcommon.NewMap(), Attributes: pcommon.NewMap(), Time: at}
	r.Resource.PutStr("service.name", "trainer")
	r.Resource.PutStr("host.name", host)
	if err := r.Attributes.FromRaw(attrs); err != nil {
		panic(err)
	}
	return r
}

// The first piece of advice is printed whole, wrapped, never cut.
func TestIncidentAdviceWhole(t *testing.T) {
	advice := strings.Repeat("Lower the batch size or shard the model over more devices. ", 4) + "END"
	recs := []records.Record{newRecord("tpu-0", time.Now(), map[string]any{
		"xla.error.code": "E1000", "xla.oom.incident.id": "a", "xla.remediation": []any{advice}})}
	var out strings.Builder
	printIncidents(&out, recs, groupIncidents(recs))
	text := out.String()
	if !strings.Contains(text, "END") || strings.Contains(text, "…") {
		t.Errorf("the advice is cut:\n%s", text)
	}
	for _, line := range strings.Split(text, "\n") {
		if len([]rune(line)) > wrapWidth && strings.Contains(line, "Lower") {
			t.Errorf("advice line of %d columns: %q", len([]rune(line)), line)
		}
	}
}

// The failure table shows what the incident table shows for the request:
// at compile time, the memory the program needs.
func TestFailureTableRequest(t *testing.T) {
	at := time.Date(2026, 9, 12, 7, 1, 12, 0, time.UTC)
	failures := []records.Record{
		newRecord("tpu-0", at, map[string]any{"xla.error.code": "E1000", "xla.oom.incident.id": "a", "xla.oom.used.size": int64(17 << 30), "xla.oom.capacity.size": int64(16 << 30)}),
		newRecord("gpu-0", at.Add(time.Minute), map[string]any{"xla.error.code": "E0007", "xla.oom.incident.id": "b", "xla.oom.requested.size": int64(2110783616)}),
	}
	var incidents, table strings.Builder
	printIncidents(&incidents, failures, groupIncidents(failures))
	printFailures(&table, failures)
	for _, want := range []string{"17.00 GiB*", "1.97 GiB"} {
		if !strings.Contains(incidents.String(), want) || !strings.Contains(table.String(), want) {
			t.Errorf("%q is not in both tables:\n%s\n%s", want, incidents.String(), table.String())
		}
	}
}

// Host-memory kills get a table of their own, with their cause and advice.
func TestHostKillTable(t *testing.T) {
	at := time.Date(2026, 9, 12, 7, 12, 41, 0, time.UTC)
	kill := newRecord("cpu-0", at, map[string]any{"xla.oom.host.source": "ray", "process.command": "load_shard", "process.pid": int64(48213),
		"xla.oom.host.rss.size": int64(29 << 30), "xla.oom.host.owner": "node", "xla.oom.retry": "may_help",
		"xla.oom.cause": "load_shard was killed", "xla.remediation": []any{"Give the job memory of its own."}})
	kill.EventName = hostKillEvent
	statement := newRecord("cpu-0", at, map[string]any{"xla.oom.host.source": "kernel"})
	var out strings.Builder
	printHostKills(&out, []records.Record{kill, statement})
	for _, row := range []string{
		`(?m)^Host-memory kills: 1 `,
		`(?m)^09-12 07:12:41 +cpu-0 +ray +load_shard \(pid 48213\) +29.00 GiB +- +the node +may_help$`,
		`(?m)^  cause: load_shard was killed$`,
		`(?m)^  advice: Give the job memory of its own.$`,
	} {
		if !regexp.MustCompile(row).MatchString(out.String()) {
			t.Errorf("no line %s:\n%s", row, out.String())
		}
	}
}

// Paths are printed from where the user ran make, and the demo ends with
// what to do next.
func TestPathsAndNextSteps(t *testing.T) {
	if got := relativePath("/repo", "/repo/distribution/out/demo/records.json"); got != "distribution/out/demo/records.json" {
		t.Errorf("relativePath: %q", got)
	}
	if got := relativePath("/elsewhere", "/repo/out/x.json"); got != "/repo/out/x.json" {
		t.Errorf("relativePath outside: %q", got)
	}
	var out strings.Builder
	printNextSteps(&out, "distribution/out/demo/records.json")
	for _, want := range []string{"Next:", "distribution/out/demo/records.json", "make run-config LOGS=", "bin/xlaoom explain"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}
