// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demorun

// The metrics part of the demo's output: the incident series the alerts page
// on, and every xla_oom series the connector exported, under the names the
// prometheus exporter gives them.

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
)

// printIncidentMetric prints the series the alerts page on, next to the
// demo's own count: both count failures per job.
func printIncidentMetric(w io.Writer, samples []promtext.Sample, printed int) {
	fmt.Fprintln(w, "Metrics of the xla_oom connector, as the collector exported them (metrics.json), named as in Prometheus")
	fmt.Fprintln(w, "(the prometheus exporter gives them these names; `make run-config` serves them on an endpoint):")
	fmt.Fprintln(w)
	incidents := promtext.Filter(samples, "xla_oom_incidents_total")
	sortSamples(incidents)
	fmt.Fprintln(w, "xla_oom_incidents_total (counter, per job: no host_name) -- the series the alerts page on")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "service_name\txla_error_code\txla_oom_retry\tvalue\t")
	var total float64
	for _, s := range incidents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t\n", s.Labels["service_name"], s.Labels["xla_error_code"], dash(s.Labels["xla_oom_retry"]), s.Value)
		total += s.Value
	}
	fmt.Fprintf(tw, "\t\ttotal\t%g\t\n", total)
	tw.Flush()
	agree := "the same count as the incident table above"
	if int(total) != printed {
		agree = fmt.Sprintf("the incident table above shows %d", printed)
	}
	fmt.Fprintf(w, "%g incidents, %s. Alert rules XlaOomIncident, XlaOomFutile and XlaOomCrashLoop\n", total, agree)
	fmt.Fprintln(w, "(examples/prometheus/alerts.yaml) page on this series; xla_oom_errors_total below counts tagged records")
	fmt.Fprintln(w, "(every line on every host) and is for dashboards.")
	fmt.Fprintln(w)
}

func printMetrics(w io.Writer, samples []promtext.Sample) {
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
	fmt.Fprintln(w)
}

func sortSamples(s []promtext.Sample) {
	sort.Slice(s, func(i, j int) bool { return s[i].Key() < s[j].Key() })
}
