// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demorun

// The demo's collector has no file_log (demo/run.yaml): the runner reads the
// log files as demo/config.yaml's file_log does and sends the records to the
// collector's OTLP/HTTP receiver.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/distribution/demo"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// logsOf reads files (<dir>/<host>/<job>.log) into records: one per log
// header (the continuation lines joined to it), dated by the header in year,
// with file_log's log.file.path and log.file.name, observed at now, on a
// resource with host.name and service.name from the path.
func logsOf(files []string, year int, now time.Time) (plog.Logs, int, error) {
	recs, err := demo.ReadFiles(files)
	if err != nil {
		return plog.Logs{}, 0, err
	}
	// In the order they were logged, across files, as a collector tailing
	// them live receives them (the processor reads a failure of a job with
	// the attempts its hosts logged before it). A record without a header
	// keeps the time of the one before it in its file.
	times := make([]time.Time, len(recs))
	for i, r := range recs {
		if t, ok := headerTime(r.Text, year); ok {
			times[i] = t
		} else if i > 0 && recs[i-1].File == r.File {
			times[i] = times[i-1]
		}
	}
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return times[order[a]].Before(times[order[b]]) })
	ld := plog.NewLogs()
	var sl plog.ScopeLogs
	last := ""
	for _, i := range order {
		r := recs[i]
		if r.File != last {
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutStr("host.name", r.Host)
			rl.Resource().Attributes().PutStr("service.name", r.Job)
			sl, last = rl.ScopeLogs().AppendEmpty(), r.File
		}
		lr := sl.LogRecords().AppendEmpty()
		lr.Body().SetStr(r.Text)
		lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(now))
		if t, ok := headerTime(r.Text, year); ok {
			lr.SetTimestamp(pcommon.NewTimestampFromTime(t))
		}
		path, err := filepath.Abs(r.File)
		if err != nil {
			return plog.Logs{}, 0, err
		}
		lr.Attributes().PutStr("log.file.path", path)
		lr.Attributes().PutStr("log.file.name", filepath.Base(r.File))
	}
	return ld, len(recs), nil
}

// send posts ld to an OTLP/HTTP receiver at addr (host:port) as OTLP/JSON.
func send(addr string, ld plog.Logs, timeout time.Duration) error {
	var m plog.JSONMarshaler
	body, err := m.MarshalLogs(ld)
	if err != nil {
		return err
	}
	c := http.Client{Timeout: timeout}
	resp, err := c.Post("http://"+addr+"/v1/logs", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2000))
		return fmt.Errorf("POST /v1/logs: %s: %s", resp.Status, msg)
	}
	return nil
}

// headerTime is when a record's log header says it was logged, in year
// (file_log gives a header without one the current year), as the demo's
// agent config dates it.
func headerTime(text string, year int) (time.Time, bool) {
	t, ok := oom.HeaderTime(text)
	return t.AddDate(year-t.Year(), 0, 0), ok
}
