// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"fmt"
	"strings"
	"time"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// hostScan finds the host-memory kills of one input (a saved kernel log:
// dmesg, dmesg -T, journalctl -k, /dev/kmsg; a job log with Slurm's or
// Ray's lines), line by line; the failure stage of the input joins the
// kernel's lines of each kill, holding each until its event ends.
type hostScan struct {
	kills []hostoom.Kill
}

// record reads the lines of one record; only a record that may hold a
// statement is copied.
func (h *hostScan) record(rec *Record, stage *failure.Assembler) {
	if !hostoom.MayContain(unsafe.String(unsafe.SliceData(rec.Text), len(rec.Text))) {
		return
	}
	text := string(rec.Text)
	for i, line := range strings.Split(text, "\n") {
		l := hostoom.SplitHeader(strings.TrimRight(line, "\r"))
		// srun's line echoes slurmstepd's of the same step: not a kill of its own.
		if s, ok := hostoom.ParseLine(l.Text); ok && !s.Kind.Echo() {
			s.Ref = int64(rec.Line + i)
			var kills []hostoom.Kill
			kills, _ = stage.HostStatement(input, l.At, s, time.Time{}, nil) // one stream: nothing is evicted
			h.kills = append(h.kills, kills...)
		}
	}
}

// end takes the kills the stage still holds at the end of the input.
func (h *hostScan) end(stage *failure.Assembler) {
	h.kills = append(h.kills, stage.FlushKills(input)...)
}

// printHostKills writes each kill, counts it, and says how many there were.
func printHostKills(p printer, name string, kills []hostoom.Kill, t *Totals) error {
	for i := range kills {
		k := &kills[i]
		t.HostKills++
		t.LastHostRetry, _ = k.Retry()
		var err error
		switch p := p.(type) {
		case *textPrinter:
			_, err = fmt.Fprint(p.w, hostKillText(name, k))
		case *jsonPrinter:
			m := pcommon.NewMap()
			oomattr.PutHostKill(k, m)
			verdict, _ := k.Retry()
			err = p.enc.Encode(jsonHostKill{Source: name, Line: int(k.Ref), Kind: "host_kill", Severity: "ERROR",
				Attributes: m.AsRaw(), Retry: verdict, Statements: k.Statements})
		}
		if err != nil {
			return outputError{err}
		}
	}
	return nil
}

// jsonHostKill is one line of --json output for a host-memory kill: the
// attributes the processor writes on the kill's record.
type jsonHostKill struct {
	Source     string         `json:"source"`
	Line       int            `json:"line"`
	Kind       string         `json:"kind"`
	Severity   string         `json:"severity"`
	Attributes map[string]any `json:"attributes"`
	Retry      string         `json:"retry"`
	Statements int            `json:"statements"`
}

func hostKillText(name string, k *hostoom.Kill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s:%d: host-memory kill (%s, %d statements)\n", name, k.Ref, k.Kind.Source(), k.Statements)
	fmt.Fprintf(&b, "  cause:      %s\n", k.Cause())
	if k.PID != 0 || k.Command != "" {
		fmt.Fprintf(&b, "  killed:     %s, pid %d", k.Command, k.PID)
		if k.Tasks > 1 {
			fmt.Fprintf(&b, " and %d more tasks (memory.oom.group)", k.Tasks-1)
		}
		b.WriteString("\n")
	}
	if k.RSS > 0 {
		fmt.Fprintf(&b, "  rss:        %s\n", oom.HumanBytes(k.RSS))
	}
	if k.Limit > 0 {
		fmt.Fprintf(&b, "  limit:      %s (usage %s)\n", oom.HumanBytes(k.Limit), oom.HumanBytes(k.Usage))
	}
	if k.Constraint != "" {
		fmt.Fprintf(&b, "  constraint: %s\n", k.Constraint)
	}
	if o := k.Owner(); o.Kind != "" {
		fmt.Fprintf(&b, "  owner:      %s\n", ownerText(o))
	}
	verdict, rule := k.Retry()
	if rule != "" {
		verdict += " (rule: " + rule + ")"
	}
	fmt.Fprintf(&b, "  retry:      %s\n  what to do:\n", verdict)
	for i, a := range k.Advice() {
		fmt.Fprintf(&b, "    %d. %s\n", i+1, a)
	}
	return b.String()
}

func ownerText(o hostoom.Owner) string {
	switch o.Kind {
	case hostoom.OwnerPod:
		s := "pod " + o.PodUID
		if o.ContainerID != "" {
			s += ", container " + o.ContainerID
		}
		return s
	case hostoom.OwnerContainer:
		return "container " + o.ContainerID
	case hostoom.OwnerSlurm:
		if o.SlurmStep != "" {
			return "Slurm job " + o.SlurmJob + " step " + o.SlurmStep
		}
		return "Slurm job " + o.SlurmJob
	case hostoom.OwnerUnit:
		return "systemd unit " + o.Unit
	case hostoom.OwnerNode:
		return "the node"
	}
	return "cgroup " + o.Path
}

// hostSummary is the summary line of the host kills, when there were any.
func hostSummary(t *Totals) string {
	if t.HostKills == 0 {
		return ""
	}
	return fmt.Sprintf("summary: %s (the kernel's OOM killer or another killer acting for host memory; not XLA failures)\n",
		plural(t.HostKills, "host-memory kill", "host-memory kills"))
}

// withHostKills is the exit status once host kills count as OOMs: a kill
// exits as an OOM does, and futile when the last kill was.
func withHostKills(t *Totals, status int) int {
	if status == ExitError || t.HostKills == 0 {
		return status
	}
	if t.LastHostRetry == oom.RetryFutile {
		return ExitFutile
	}
	if status == ExitNone {
		return ExitFound
	}
	return status
}
