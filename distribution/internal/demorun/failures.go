// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demorun

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// printFailures lists the processor's failure records: one per failure and
// host, assembled from every record that states it.
func printFailures(w io.Writer, failures []records.Record) {
	fmt.Fprintf(w, "XLA OOM failure records: %d (event xla.oom.failure, one per failure and host, assembled from every record\n", len(failures))
	fmt.Fprintln(w, "that states it: the request, who held the memory, the line of the job's code that asked, the verdict and its rule)")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tJOB\tHOST\tCODE\tREQUESTED\tHELD BY\tSITE\tRETRY (RULE)\tRECORDS")
	// In the order they happened; they leave in the order they closed.
	sort.SliceStable(failures, func(i, j int) bool { return failures[i].Time.Before(failures[j].Time) })
	star := false
	for _, f := range failures {
		// As the incident table: at compile time, what the program needs.
		requested, _, compile := figures(f)
		req := dash(requested)
		if compile {
			req, star = req+"*", true
		}
		site := "-"
		if file := f.Str("code.file.path"); file != "" {
			line, _ := f.Int("code.line.number")
			site = file + ":" + strconv.FormatInt(line, 10)
		}
		retry := f.Str("xla.oom.retry")
		if rule := f.Str("xla.oom.retry.rule"); rule != "" {
			retry += " (" + rule + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Time.Format("01-02 15:04:05"), f.ResourceStr("service.name"), f.ResourceStr("host.name"),
			f.Str("xla.error.code"), req, dash(f.Str("xla.oom.holder.program")), site, retry, f.Str("xla.oom.failure.statements"))
	}
	_ = tw.Flush()
	if star {
		fmt.Fprintln(w, "* compile time: the memory the program needs, as in the incident table.")
	}
	fmt.Fprintln(w)
}
