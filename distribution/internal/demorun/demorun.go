// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package demorun is the demo of `make run`: it runs a collector once over
// log files and prints the XLA OOM incidents found and the metrics produced.
// It reads the logs as demo/config.yaml's file_log does (a record per log
// header, dated by it, host and job from the path) and sends them to the
// collector's OTLP/HTTP receiver; the xla_oom processor tags OOM records and
// the xla_oom connector counts them. The demo waits until the file exporter
// has written every record and the metrics stop changing, shuts the
// collector down and reads the exported JSON, showing the metrics under their
// Prometheus names.
package demorun

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// Options say what to run on.
type Options struct {
	Collector string        // otelcol-xlaoom binary
	Config    string        // collector configuration using ${env:XLAOOM_OTLP_HTTP} (its OTLP/HTTP receiver) and ${env:XLAOOM_OUT}
	Logs      string        // glob of the log files; <dir>/<host>/<service>.log names host and service
	Out       string        // directory for records.json, metrics.json and collector.log
	Timeout   time.Duration // give up after this long
	Env       []string      // more environment for the collector ("KEY=value"), e.g. where to send the records
	// PathsFrom is the directory the printed paths are relative to: where the
	// user ran make, not the distribution directory the demo runs in.
	PathsFrom string
}

// Result is what a run produced, for tests.
type Result struct {
	Records []records.Record  // every exported record, tagged or not
	Metrics []promtext.Sample // the connector's metrics as exported to metrics.json, named as in Prometheus
	// Incidents is the number of incidents the demo printed: tagged records
	// grouped by xla.oom.incident.id.
	Incidents int
}

// Run runs the collector once over o.Logs and prints the incident and metric
// tables to w.
func Run(w io.Writer, o Options) (Result, error) {
	bin, config, logs, out, timeout := o.Collector, o.Config, o.Logs, o.Out, o.Timeout
	var res Result
	files, err := filepath.Glob(logs)
	if err != nil || len(files) == 0 {
		return res, fmt.Errorf("no log files match %q", logs)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return res, err
	}
	absOut, _ := filepath.Abs(out)
	for _, f := range []string{"records.json", "metrics.json"} {
		_ = os.Remove(filepath.Join(absOut, f)) // the file exporter appends
	}
	shown := func(p string) string {
		abs, _ := filepath.Abs(p)
		return relativePath(o.PathsFrom, abs)
	}
	fmt.Fprintf(w, "Running %s on %d log files (%s) ...\n", shown(bin), len(files), shown(logs))
	started := time.Now()
	ld, n, err := logsOf(files, started.UTC().Year(), started)
	if err != nil {
		return res, err
	}
	if _, err := os.Stat(bin); err != nil {
		return res, fmt.Errorf("collector binary: %w", err)
	}
	p, ports, err := collector.StartOnFreePorts(collector.Command{
		Binary: bin,
		Args:   func(*collector.Ports) []string { return []string{"--config", config} },
		Env: func(ports *collector.Ports) []string {
			return append([]string{"XLAOOM_OTLP_HTTP=" + ports.Addr("otlp"), "XLAOOM_OUT=" + absOut}, o.Env...)
		},
		Log:     filepath.Join(absOut, "collector.log"),
		Ready:   []string{"otlp"},
		Timeout: timeout,
	})
	if err != nil {
		return res, err
	}
	defer p.Stop(10 * time.Second) //nolint:errcheck // stopped explicitly below; this covers early returns
	if err := send(ports.Addr("otlp"), ld, timeout); err != nil {
		return res, fmt.Errorf("sending the records to the collector: %w\n%s", err, p.Tail(2000))
	}

	recordsPath, metricsPath := filepath.Join(absOut, "records.json"), filepath.Join(absOut, "metrics.json")
	if err := waitRecords(p, recordsPath, n, timeout); err != nil {
		return res, err
	}
	// The connector emits every second: wait for two equal readings of its
	// counters so that they include the last records.
	if _, err := stableMetrics(p, metricsPath, timeout); err != nil {
		return res, fmt.Errorf("%w\ncollector log:\n%s", err, p.Tail(2000))
	}
	if err := p.Stop(15 * time.Second); err != nil {
		return res, fmt.Errorf("stopping the collector: %w\n%s", err, p.Tail(2000))
	}
	// Read once more after shutdown: the file exporter has flushed everything.
	samples, err := promtext.ReadMetricsFile(metricsPath)
	if err != nil {
		return res, err
	}
	recs, err := records.ReadFile(recordsPath)
	if err != nil {
		return res, err
	}
	recs, failures := records.Split(recs) // the input's records, and the processor's failure records
	fmt.Fprintf(w, "Done in %.1fs; the collector has stopped. What it wrote:\n  log records as exported, the OOMs with their xla.* attributes: %s\n  metrics as exported: %s\n  collector log: %s\n\n",
		time.Since(started).Seconds(), shown(recordsPath), shown(metricsPath), shown(p.Log))
	incidents := groupIncidents(recs)
	printWarnings(w, recs, incidents)
	printIncidents(w, recs, incidents)
	printFailures(w, failures)
	printHostKills(w, recs)
	printExample(w, recs)
	printIncidentMetric(w, samples, len(incidents))
	printMetrics(w, samples)
	printWarningMetrics(w, samples)
	printHostKillMetric(w, samples)
	printNextSteps(w, shown(recordsPath))
	return Result{Records: recs, Metrics: samples, Incidents: len(incidents)}, nil
}

// relativePath is p relative to dir (the working directory when dir is
// empty), or p itself when it lies outside dir.
func relativePath(dir, p string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// waitRecords waits until the collector has exported n records to path, or
// has ended.
func waitRecords(p *collector.Process, path string, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		recs, err := records.ReadFile(path)
		if lines, _ := records.Split(recs); err == nil && len(lines) >= n {
			return nil
		}
		if done, perr := p.Exited(); done {
			return fmt.Errorf("collector exited (%v):\n%s", perr, p.Tail(2000))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s holds %d of the %d records sent after %s (%v)\ncollector log:\n%s", path, len(recs), n, timeout, err, p.Tail(2000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stableMetrics reads the metrics file until two readings 1.5 s apart have
// the same xla_oom counters.
func stableMetrics(p *collector.Process, path string, timeout time.Duration) ([]promtext.Sample, error) {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		s, err := promtext.ReadMetricsFile(path)
		if err == nil {
			var keys []string
			for _, x := range append(promtext.Filter(s, "xla_oom_errors_total"), promtext.Filter(s, "xla_oom_incidents_total")...) {
				keys = append(keys, x.Key()+"="+strconv.FormatFloat(x.Value, 'g', -1, 64))
			}
			sort.Strings(keys)
			cur := strings.Join(keys, "\n")
			if cur != "" && cur == last {
				return s, nil
			}
			last = cur
		}
		if done, perr := p.Exited(); done {
			return nil, fmt.Errorf("collector exited (%v)", perr)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no stable xla_oom metrics in %s within %s (last error: %v)", path, timeout, err)
		}
		time.Sleep(1500 * time.Millisecond)
	}
}

// incident is the tagged records of one failure of a job: those that share
// an xla.oom.incident.id (every host's copy, every line of it).
type incident struct {
	id, job, code, category, cause, advice string
	retry                                  string // xla.oom.retry: futile, may_help, unknown
	requested, free                        string
	compileFigures                         bool
	hosts                                  []string
	records                                int
	t                                      time.Time // the earliest record's
}

// groupIncidents groups the tagged records by xla.oom.incident.id, in time
// order. The figures shown are those of the first record of each incident.
func groupIncidents(recs []records.Record) []*incident {
	byID := map[string]*incident{}
	var list []*incident
	for _, r := range recs {
		code := r.Str("xla.error.code")
		if code == "" {
			continue
		}
		id := r.Str("xla.oom.incident.id")
		in := byID[id]
		if in == nil {
			in = &incident{id: id, job: r.ResourceStr("service.name"), t: r.Time}
			byID[id] = in
			list = append(list, in)
		}
		in.records++
		if host := r.ResourceStr("host.name"); !slices.Contains(in.hosts, host) {
			in.hosts = append(in.hosts, host)
		}
		if in.code != "" && !r.Time.Before(in.t) {
			continue
		}
		in.t, in.code, in.category, in.cause = r.Time, code, r.Str("xla.error.category"), r.Str("xla.oom.cause")
		in.retry = r.Str("xla.oom.retry")
		in.requested, in.free, in.compileFigures = figures(r)
		in.advice = ""
		if adv := r.Strings("xla.remediation"); len(adv) > 0 {
			in.advice = adv[0]
		}
	}
	for _, in := range list {
		sort.Strings(in.hosts)
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].t.Before(list[j].t) })
	return list
}

// figures are what a record says did not fit: requested / free at run time,
// used / capacity at compile time (compile is then true).
func figures(r records.Record) (requested, free string, compile bool) {
	req, okReq := r.Int("xla.oom.requested.size")
	fr, okFree := r.Int("xla.oom.free.size")
	if !okReq && !okFree {
		req, okReq = r.Int("xla.oom.used.size")
		fr, okFree = r.Int("xla.oom.capacity.size")
		compile = okReq || okFree
	}
	if okReq {
		requested = human(req)
	}
	if okFree {
		free = human(fr)
	}
	return requested, free, compile
}

func printIncidents(w io.Writer, recs []records.Record, list []*incident) {
	hosts, jobs := map[string]bool{}, map[string]bool{}
	tagged := 0
	for _, r := range recs {
		hosts[r.ResourceStr("host.name")] = true
		jobs[r.ResourceStr("service.name")] = true
		if r.Str("xla.error.code") != "" {
			tagged++
		}
	}
	delete(hosts, "")
	delete(jobs, "")
	fmt.Fprintf(w, "XLA OOM incidents: %d, from %d tagged records out of %d read, of %d jobs on %d hosts\n", len(list), tagged, len(recs), len(jobs), len(hosts))
	fmt.Fprintln(w, "(an incident is one failure of a job: the records that share an xla.oom.incident.id, however many hosts")
	fmt.Fprintln(w, "and lines report it; the time is the job's first record of it)")
	fmt.Fprintln(w)
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tTIME\tJOB\tHOSTS\tCODE\tCATEGORY\tREQUESTED\tFREE\tCAUSE\tRETRY\tRECORDS")
	star := false
	for i, in := range list {
		req, free := dash(in.requested), dash(in.free)
		if in.compileFigures {
			req, free, star = req+"*", free+"*", true
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", i+1, in.t.Format("01-02 15:04:05"), in.job, strings.Join(in.hosts, ","),
			in.code, in.category, req, free, dash(in.cause), dash(in.retry), in.records)
	}
	tw.Flush()
	// The first piece of advice goes under each row, outside the columns, whole.
	for i, line := range strings.Split(strings.TrimRight(table.String(), "\n"), "\n") {
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		if i > 0 {
			writeWrapped(w, "        advice: ", list[i-1].advice)
		}
	}
	fmt.Fprintln(w)
	if star {
		fmt.Fprintln(w, "* compile time: memory the program needs / memory capacity (nothing was allocated yet).")
	}
	fmt.Fprintln(w, "RETRY: xla.oom.retry, whether rerunning the job unchanged can succeed: futile (it fails the same way;")
	fmt.Fprintln(w, "change the configuration), may_help (it depended on memory held outside the job), unknown.")
	fmt.Fprintln(w, "RECORDS: the tagged records of the incident (every host's copy; C++ log line and Python exception).")
	fmt.Fprintln(w, "Full attributes and every piece of advice (xla.remediation) are in the tagged records.")
	fmt.Fprintln(w)
}

// printExample shows every attribute the processor added to one record, the
// program-load failure if there is one (it has the most figures).
func printExample(w io.Writer, recs []records.Record) {
	var ex *records.Record
	for i := range recs {
		code := recs[i].Str("xla.error.code")
		if code != "" && (ex == nil || code == "E0101") {
			ex = &recs[i]
			if code == "E0101" {
				break
			}
		}
	}
	if ex == nil {
		return
	}
	first, _, _ := strings.Cut(ex.Body, "\n")
	fmt.Fprintf(w, "One tagged record in full (%s):\n  body: %s\n", ex.ResourceStr("host.name"), clip(first, 150))
	var keys []string
	ex.Attributes.Range(func(k string, _ pcommon.Value) bool {
		if strings.HasPrefix(k, "xla.") || k == "error.type" {
			keys = append(keys, k)
		}
		return true
	})
	sort.Strings(keys)
	for _, k := range keys {
		if k == "xla.remediation" {
			continue
		}
		v, _ := ex.Attributes.Get(k)
		fmt.Fprintf(w, "  %-24s %s\n", k, v.AsString())
	}
	fmt.Fprintln(w, "  xla.remediation:")
	for _, a := range ex.Strings("xla.remediation") {
		fmt.Fprintf(w, "    - %s\n", a)
	}
	fmt.Fprintln(w)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// wrapWidth is the width of the wrapped advice: a terminal's 120 columns.
const wrapWidth = 118

// writeWrapped writes s after prefix, in lines of at most wrapWidth
// columns, the next lines indented as far as prefix; a word longer than a
// line is not cut.
func writeWrapped(w io.Writer, prefix, s string) {
	s = dash(strings.TrimSpace(s))
	indent := strings.Repeat(" ", len([]rune(prefix)))
	line, width := prefix, len([]rune(prefix))
	for i, word := range strings.Fields(s) {
		n := len([]rune(word))
		if i > 0 && width+1+n > wrapWidth {
			fmt.Fprintln(w, line)
			line, width = indent+word, len(indent)+n
			continue
		}
		if i > 0 {
			line, width = line+" ", width+1
		}
		line, width = line+word, width+n
	}
	fmt.Fprintln(w, line)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func human(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	v, i := float64(b), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.2f %ciB", v, "KMGTPE"[i])
}
