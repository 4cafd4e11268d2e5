// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demorun

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// warning is one record the processor tagged with xla.memory.warning, and
// the first incident of the same job that followed it.
type warning struct {
	job, host, kind, figures, explanation string
	t                                     time.Time
	next                                  string // "#2 07:02:44 E0007, 2m13s later", or "" if none followed
}

// printWarnings prints the memory-pressure warnings in the order they were
// logged, each with the incident of its job that followed: what a ticket on
// the warning would have bought. Run prints them before the incidents.
func printWarnings(w io.Writer, recs []records.Record, incidents []*incident) {
	var list []*warning
	for _, r := range recs {
		kind := r.Str("xla.memory.warning")
		if kind == "" {
			continue
		}
		wn := &warning{job: r.ResourceStr("service.name"), host: r.ResourceStr("host.name"), kind: kind,
			explanation: r.Str("xla.memory.warning.explanation"), t: r.Time, figures: warningFigures(r)}
		for i, in := range incidents { // in time order
			if in.job == wn.job && in.t.After(wn.t) {
				wn.next = fmt.Sprintf("#%d %s %s, %s later", i+1, in.t.Format("15:04:05"), in.code, in.t.Sub(wn.t).Round(time.Second))
				break
			}
		}
		list = append(list, wn)
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].t.Before(list[j].t) })
	fmt.Fprintf(w, "Early warnings: %d memory-pressure warnings (tagged xla.memory.warning, never xla.error.code)\n\n", len(list))
	if len(list) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tJOB\tHOST\tWARNING\tFIGURES\tNEXT INCIDENT OF THE JOB")
	for _, wn := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", wn.t.Format("01-02 15:04:05"), wn.job, wn.host, wn.kind, dash(wn.figures), dash(wn.next))
	}
	tw.Flush()
	for _, wn := range uniqueKinds(list) {
		writeWrapped(w, "  "+wn.kind+": ", wn.explanation)
	}
	fmt.Fprintln(w)
}

// warningFigures sums up a warning's sizes: peak / limit, or the request.
func warningFigures(r records.Record) string {
	limit, okLimit := r.Int("xla.oom.capacity.size")
	if used, ok := r.Int("xla.oom.used.size"); ok && okLimit && limit > 0 {
		return fmt.Sprintf("peak %s / limit %s (%.2f)", human(used), human(limit), float64(used)/float64(limit))
	}
	if req, ok := r.Int("xla.oom.requested.size"); ok {
		return "requested " + human(req)
	}
	return ""
}

func uniqueKinds(list []*warning) []*warning {
	seen := map[string]bool{}
	var out []*warning
	for _, wn := range list {
		if !seen[wn.kind] {
			seen[wn.kind] = true
			out = append(out, wn)
		}
	}
	return out
}

// printWarningMetrics prints the connector's warning counter, per job.
func printWarningMetrics(w io.Writer, samples []promtext.Sample) {
	counts := promtext.Filter(samples, "xla_memory_warnings_total")
	if len(counts) == 0 {
		return
	}
	sortSamples(counts)
	fmt.Fprintln(w, "xla_memory_warnings_total (counter, per job: no host_name)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "service_name\txla_memory_warning\tvalue\t")
	for _, s := range counts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", s.Labels["service_name"], s.Labels["xla_memory_warning"], strconv.FormatFloat(s.Value, 'g', -1, 64))
	}
	tw.Flush()
	fmt.Fprintln(w, "Alert rule (ticket) for this series: examples/prometheus/warnings.yaml.")
	fmt.Fprintln(w)
}
