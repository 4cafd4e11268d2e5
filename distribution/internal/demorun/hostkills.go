// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demorun

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// hostKillEvent is the event name of the record that carries a whole
// host-memory kill; the kill's other lines carry only their statement.
const hostKillEvent = "xla.oom.host_kill"

// printHostKills lists the processes killed for host memory: never XLA
// failures, so in neither table above.
func printHostKills(w io.Writer, recs []records.Record) {
	var kills []records.Record
	for _, r := range recs {
		if r.EventName == hostKillEvent {
			kills = append(kills, r)
		}
	}
	sort.SliceStable(kills, func(i, j int) bool { return kills[i].Time.Before(kills[j].Time) })
	fmt.Fprintf(w, "Host-memory kills: %d (event xla.oom.host_kill: the kernel's OOM killer, or another killer, ended a process\n", len(kills))
	fmt.Fprintln(w, "because its cgroup or the node ran out of RAM; not XLA failures: no xla.error.code)")
	fmt.Fprintln(w)
	if len(kills) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tHOST\tSOURCE\tKILLED\tRSS\tLIMIT\tOWNER\tRETRY")
	for _, k := range kills {
		killed := k.Str("process.command")
		if pid, ok := k.Int("process.pid"); ok {
			killed += fmt.Sprintf(" (pid %d)", pid)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.Time.Format("01-02 15:04:05"), k.ResourceStr("host.name"), k.Str("xla.oom.host.source"),
			dash(killed), sizeOrDash(k, "xla.oom.host.rss.size"), sizeOrDash(k, "xla.oom.host.limit.size"), dash(ownerText(k)), dash(k.Str("xla.oom.retry")))
	}
	tw.Flush()
	for _, k := range kills {
		writeWrapped(w, "  cause: ", k.Str("xla.oom.cause"))
		if advice := k.Strings("xla.remediation"); len(advice) > 0 {
			writeWrapped(w, "  advice: ", advice[0])
		}
	}
	fmt.Fprintln(w)
}

func sizeOrDash(r records.Record, key string) string {
	if n, ok := r.Int(key); ok {
		return human(n)
	}
	return "-"
}

// ownerText names who the killed process's cgroup belongs to.
func ownerText(r records.Record) string {
	switch r.Str("xla.oom.host.owner") {
	case "slurm_job":
		if step := r.Str("xla.oom.host.slurm.step_id"); step != "" {
			return "Slurm job " + r.Str("xla.oom.host.slurm.job_id") + " step " + step
		}
		return "Slurm job " + r.Str("xla.oom.host.slurm.job_id")
	case "k8s_pod":
		return "pod " + r.Str("k8s.pod.uid")
	case "container":
		return "container " + r.Str("container.id")
	case "systemd_unit":
		return "unit " + r.Str("xla.oom.host.systemd_unit")
	case "node":
		return "the node"
	}
	return r.Str("xla.oom.host.cgroup")
}

// printHostKillMetric prints the connector's count of host-memory kills.
func printHostKillMetric(w io.Writer, samples []promtext.Sample) {
	kills := promtext.Filter(samples, "xla_oom_host_kills_total")
	sortSamples(kills)
	fmt.Fprintln(w, "xla_oom_host_kills_total (counter: one per kill, however many sources report it; alert XlaOomHostKill)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "service_name\txla_oom_host_source\txla_oom_host_constraint\txla_oom_retry\tvalue\t")
	for _, s := range kills {
		l := s.Labels
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%g\t\n", dash(l["service_name"]), l["xla_oom_host_source"], dash(l["xla_oom_host_constraint"]), dash(l["xla_oom_retry"]), s.Value)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// printNextSteps ends the demo with what a newcomer does next.
func printNextSteps(w io.Writer, records string) {
	steps := [][2]string{
		{"less " + records, "every record as exported, the tagged ones with their xla.* attributes"},
		{"make run-config LOGS='/var/log/xla/*/*.log'", "the same on your own logs, until Ctrl-C (docs/deployment.md)"},
		{"make xlaoom && bin/xlaoom explain train.log", "explain one log file in a terminal, no collector (docs/explain.md)"},
		{"make help", "every target"},
	}
	fmt.Fprintln(w, "Next:")
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, s := range steps {
		fmt.Fprintf(tw, "  %s\t%s\n", s[0], s[1])
	}
	tw.Flush()
}
