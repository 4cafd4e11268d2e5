// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package demorun is the demo of `make run`: it runs otelcol-xlaoom once over
// log files and prints the XLA OOM incidents found and the metrics produced.
// The collector reads the logs from the beginning with file_log, tags OOM
// records with the xla_oom processor and counts them with the xla_oom
// connector; the demo waits until the file exporter's output stops growing,
// scrapes the Prometheus exporter, shuts the collector down and reads the
// exported JSON.
package demorun

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
	Config    string        // collector configuration using ${env:XLAOOM_LOGS}, ${env:XLAOOM_OUT}, ${env:XLAOOM_PROMETHEUS}
	Logs      string        // glob of the log files; <dir>/<host>/<service>.log names host and service
	Out       string        // directory for records.json, metrics.json and collector.log
	Timeout   time.Duration // give up after this long
}

// Result is what a run produced, for tests.
type Result struct {
	Records []records.Record  // every exported record, tagged or not
	Metrics []promtext.Sample // the last Prometheus scrape before shutdown
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
	absLogs, err := filepath.Abs(logs)
	if err != nil {
		return res, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return res, err
	}
	absOut, _ := filepath.Abs(out)
	for _, f := range []string{"records.json", "metrics.json"} {
		_ = os.Remove(filepath.Join(absOut, f)) // the file exporter appends
	}
	port, err := collector.FreePort()
	if err != nil {
		return res, err
	}
	prom := collector.Addr(port)
	fmt.Fprintf(w, "Running %s on %d log files (%s) ...\n", bin, len(files), logs)
	started := time.Now()
	p, err := collector.Start(bin, config, filepath.Join(absOut, "collector.log"),
		"XLAOOM_LOGS="+absLogs, "XLAOOM_OUT="+absOut, "XLAOOM_PROMETHEUS="+prom)
	if err != nil {
		return res, err
	}
	defer p.Stop(10 * time.Second) //nolint:errcheck // stopped explicitly below; this covers early returns

	recordsPath := filepath.Join(absOut, "records.json")
	if _, err := collector.WaitStable(recordsPath, 2*time.Second, timeout); err != nil {
		if done, perr := p.Exited(); done {
			return res, fmt.Errorf("collector exited (%v):\n%s", perr, p.Tail(2000))
		}
		return res, err
	}
	// The connector emits every second: wait for two equal scrapes so the
	// counts include the last records.
	samples, err := stableScrape("http://"+prom+"/metrics", timeout)
	if err != nil {
		return res, fmt.Errorf("%w\ncollector log:\n%s", err, p.Tail(2000))
	}
	if err := p.Stop(15 * time.Second); err != nil {
		return res, fmt.Errorf("stopping the collector: %w\n%s", err, p.Tail(2000))
	}
	recs, err := records.ReadFile(recordsPath)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(w, "Done in %.1fs.\n  log records as exported, the OOMs with their xla.* attributes: %s\n  metrics as exported: %s\n  collector log: %s\n\n",
		time.Since(started).Seconds(), rel(recordsPath), rel(filepath.Join(absOut, "metrics.json")), rel(p.Log))
	printWarnings(w, recs)
	printIncidents(w, recs)
	printExample(w, recs)
	printMetrics(w, samples, prom)
	printWarningMetrics(w, samples)
	return Result{Records: recs, Metrics: samples}, nil
}

func rel(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

func stableScrape(url string, timeout time.Duration) ([]promtext.Sample, error) {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		s, err := promtext.Scrape(url, 5*time.Second)
		if err == nil {
			var keys []string
			for _, x := range promtext.Filter(s, "xla_oom_errors_total") {
				keys = append(keys, x.Key()+"="+strconv.FormatFloat(x.Value, 'g', -1, 64))
			}
			sort.Strings(keys)
			cur := strings.Join(keys, "\n")
			if cur != "" && cur == last {
				return s, nil
			}
			last = cur
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no stable xla_oom metrics at %s within %s (last error: %v)", url, timeout, err)
		}
		time.Sleep(1500 * time.Millisecond)
	}
}

// incident is one or more tagged records of the same failure: XLA often logs
// a failure twice (a C++ log line, then the Python exception).
type incident struct {
	when, host, code, category, cause, advice string
	requested, free                           string
	compileFigures                            bool
	records                                   int
	t                                         time.Time
	reqBytes                                  int64
}

func printIncidents(w io.Writer, recs []records.Record) {
	var list []*incident
	hosts := map[string]bool{}
	tagged := 0
	for _, r := range recs {
		hosts[r.ResourceStr("host.name")] = true
		code := r.Str("xla.error.code")
		if code == "" {
			continue
		}
		tagged++
		in := &incident{
			host: r.ResourceStr("host.name"), code: code, category: r.Str("xla.error.category"),
			cause: r.Str("xla.oom.cause"), records: 1,
		}
		in.when, in.t = headerTime(r)
		req, okReq := r.Int("xla.oom.requested.size")
		free, okFree := r.Int("xla.oom.free.size")
		if !okReq && !okFree {
			// Compile time: what the program uses against the capacity.
			req, okReq = r.Int("xla.oom.used.size")
			free, okFree = r.Int("xla.oom.capacity.size")
			in.compileFigures = okReq || okFree
		}
		if okReq {
			in.requested, in.reqBytes = human(req), req
		}
		if okFree {
			in.free = human(free)
		}
		if adv := r.Strings("xla.remediation"); len(adv) > 0 {
			in.advice = adv[0]
		}
		if n := len(list); n > 0 && sameFailure(list[n-1], in) {
			list[n-1].records++
			continue
		}
		list = append(list, in)
	}
	sort.SliceStable(list, func(i, j int) bool {
		if !list[i].t.Equal(list[j].t) {
			return list[i].t.Before(list[j].t)
		}
		return list[i].host < list[j].host
	})
	delete(hosts, "")
	fmt.Fprintf(w, "XLA OOM incidents: %d, from %d tagged records out of %d read, on %d hosts\n\n",
		len(list), tagged, len(recs), len(hosts))
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tTIME\tHOST\tCODE\tCATEGORY\tREQUESTED\tFREE\tCAUSE")
	star := false
	for i, in := range list {
		req, free := dash(in.requested), dash(in.free)
		if in.compileFigures {
			req, free, star = req+"*", free+"*", true
		}
		n := strconv.Itoa(i + 1)
		if in.records > 1 {
			n += fmt.Sprintf(" (x%d)", in.records)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n, in.when, in.host, in.code, in.category, req, free, dash(in.cause))
	}
	tw.Flush()
	// The first piece of advice goes under each row, outside the columns.
	for i, line := range strings.Split(strings.TrimRight(table.String(), "\n"), "\n") {
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		if i > 0 {
			fmt.Fprintf(w, "        advice: %s\n", clip(list[i-1].advice, 110))
		}
	}
	fmt.Fprintln(w)
	if star {
		fmt.Fprintln(w, "* compile time: memory the program needs / memory capacity (nothing was allocated yet).")
	}
	fmt.Fprintln(w, "(xN): the same failure logged N times (C++ log line and Python exception). Full attributes and every")
	fmt.Fprintln(w, "piece of advice (xla.remediation) are in the tagged records.")
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

func sameFailure(a, b *incident) bool {
	d := b.t.Sub(a.t)
	return a.host == b.host && a.code == b.code && a.reqBytes == b.reqBytes && d >= 0 && d <= 2*time.Second
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Log headers carry the time; the record timestamp is when file_log read it.
var headerTimes = []*regexp.Regexp{
	regexp.MustCompile(`^[IWEF](\d\d)(\d\d) (\d\d:\d\d:\d\d)`),                        // absl: E0912 07:01:12.118224
	regexp.MustCompile(`^\d{4}-(\d\d)-(\d\d)[ T](\d\d:\d\d:\d\d)`),                    // TSL, ISO, Python logging
	regexp.MustCompile(`^(?:\(\S+ pid=\d+\) )?[A-Z]+ (\d\d)-(\d\d) (\d\d:\d\d:\d\d)`), // vLLM: ERROR 09-12 07:23:02
}

func headerTime(r records.Record) (string, time.Time) {
	for _, re := range headerTimes {
		if m := re.FindStringSubmatch(r.Body); m != nil {
			t, err := time.Parse("01-02 15:04:05", m[1]+"-"+m[2]+" "+m[3])
			if err == nil {
				return m[1] + "-" + m[2] + " " + m[3], t
			}
		}
	}
	return r.Time.Format("01-02 15:04:05"), r.Time
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

func printMetrics(w io.Writer, samples []promtext.Sample, prom string) {
	fmt.Fprintf(w, "Metrics of the xla_oom connector, as Prometheus scrapes them (http://%s/metrics):\n\n", prom)
	section := func(title string, header string, rows func(tw *tabwriter.Writer)) {
		fmt.Fprintln(w, title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, header)
		rows(tw)
		tw.Flush()
		fmt.Fprintln(w)
	}
	errs := promtext.Filter(samples, "xla_oom_errors_total")
	sortSamples(errs)
	section("xla_oom_errors_total (counter)", "host_name\txla_error_code\txla_error_phase\txla_oom_cause\tvalue\t", func(tw *tabwriter.Writer) {
		var total float64
		for _, s := range errs {
			l := s.Labels
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%g\t\n", l["host_name"], l["xla_error_code"], l["xla_error_phase"], dash(l["xla_oom_cause"]), s.Value)
			total += s.Value
		}
		fmt.Fprintf(tw, "\t\t\ttotal\t%g\t\n", total)
	})
	press := promtext.Filter(samples, "xla_oom_pressure_ratio")
	sortSamples(press)
	section("xla_oom_pressure_ratio (gauge: demand of the last failure / what was available)", "host_name\txla_error_code\tvalue\t", func(tw *tabwriter.Writer) {
		for _, s := range press {
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t\n", s.Labels["host_name"], s.Labels["xla_error_code"], s.Value)
		}
	})
	for _, h := range []string{"xla_oom_requested_size_bytes", "xla_oom_shortfall_size_bytes"} {
		counts := promtext.Filter(samples, h+"_count")
		sortSamples(counts)
		section(h+" (histogram)", "host_name\txla_error_code\tcount\tsum\t", func(tw *tabwriter.Writer) {
			for _, c := range counts {
				sum := promtext.Sum(samples, h+"_sum", c.Labels)
				fmt.Fprintf(tw, "%s\t%s\t%g\t%s\t\n", c.Labels["host_name"], c.Labels["xla_error_code"], c.Value, human(int64(sum)))
			}
		})
	}
	fmt.Fprintln(w, "A pressure above 1 means the failing program or buffer did not fit.")
	fmt.Fprintln(w, "Alert rules for these series: examples/prometheus/alerts.yaml.")
}

func sortSamples(s []promtext.Sample) {
	sort.Slice(s, func(i, j int) bool { return s[i].Key() < s[j].Key() })
}
