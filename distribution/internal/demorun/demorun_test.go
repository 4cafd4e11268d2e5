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
