// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/stage"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// hostScan reads, for the stage, the lines of an input (a kernel log, a job log) that the prefilter passed
// over but may hold a host statement; the records it passed go through gatherer.record.
type hostScan struct {
	kills []hostoom.TextKill
	// text reads what kubectl and Slurm print of a platform's state (kubectl describe, sacct), line by line.
	text hostoom.TextReader
}

// line passes a physical line to the text reader, copied only where it reads it.
func (h *hostScan) line(n int, b []byte) {
	if h.text.Wants(unsafe.String(unsafe.SliceData(b), len(b))) {
		h.text.Line(int64(n), string(b))
	}
}

// record reads the lines of a record the prefilter passed over; only one
// that may hold a statement is copied.
func (h *hostScan) record(rec *Record, g *gatherer) {
	if hostoom.MayContain(unsafe.String(unsafe.SliceData(rec.Text), len(rec.Text))) {
		var t stage.Tags
		g.closed = g.stage.Texts(stage.Input{Stream: input, Line: rec.Line}, stage.Marks{}, []string{string(rec.Text)}, &t, g.closed)
		g.kills = append(g.kills, t.Ended...)
	}
}

// end takes the kills the stage still holds at the end of the input, and the texts' kills; a statement the stage
// read on a text's line (an event's message) is the text's kill, counted once.
func (h *hostScan) end(g *gatherer) {
	for _, k := range slices.Concat(g.kills, g.stage.Assembler.FlushKills(input)) {
		if !h.text.Covers(k.Ref) {
			h.kills = append(h.kills, hostoom.TextKill{Kill: k, Restarts: -1})
		}
	}
	h.kills = append(h.kills, h.text.End()...)
	slices.SortStableFunc(h.kills, func(a, b hostoom.TextKill) int { return cmp.Compare(a.Ref, b.Ref) })
}

// printHostKills writes each kill and counts it.
func printHostKills(p printer, name string, kills []hostoom.TextKill, t *Totals) error {
	for i := range kills {
		k := &kills[i]
		t.HostKills++
		verdict, _ := k.Retry()
		t.LastHostRetry = verdict
		var err error
		switch p := p.(type) {
		case *textPrinter:
			_, err = fmt.Fprint(p.w, hostKillText(name, k))
		case *jsonPrinter:
			m := pcommon.NewMap()
			oomattr.PutHostKill(&k.Kill, m)
			putTextFacts(k, m)
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

// putTextFacts writes what only a platform's text prints: the pod's name and namespace, the restart count.
func putTextFacts(k *hostoom.TextKill, m pcommon.Map) {
	if k.Pod != "" {
		m.PutStr("k8s.pod.name", k.Pod)
	}
	if k.Namespace != "" {
		m.PutStr("k8s.namespace.name", k.Namespace)
	}
	if k.Restarts >= 0 {
		m.PutInt("k8s.container.restart_count", k.Restarts)
	}
}

func hostKillText(name string, tk *hostoom.TextKill) string {
	k := &tk.Kill
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s:%d: host-memory kill (%s, %d statements)\n", name, k.Ref, k.Kind.Source(), k.Statements)
	var killed, rss, limit string
	if k.PID != 0 || k.Command != "" {
		killed = fmt.Sprintf("%s, pid %d", k.Command, k.PID)
		if k.Tasks > 1 {
			killed += fmt.Sprintf(" and %d more tasks (memory.oom.group)", k.Tasks-1)
		}
	}
	if k.RSS > 0 {
		rss = oom.HumanBytes(k.RSS)
	}
	if k.Limit > 0 {
		limit = oom.HumanBytes(k.Limit)
	}
	if k.Usage > 0 {
		limit += " (usage " + oom.HumanBytes(k.Usage) + ")"
	}
	var count string
	if k.Count > 1 {
		count = fmt.Sprintf("%d kills", k.Count)
	}
	verdict, rule := k.Retry()
	for _, f := range [...][2]string{{"cause", k.Cause()}, {"killed", killed}, {"pod", podText(tk)}, {"count", count},
		{"rss", rss}, {"limit", limit},
		{"constraint", string(k.Constraint)}, {"owner", ownerText(k.Owner())}, {"retry", verdict + ruleText(oom.Decision{Rule: rule})}} {
		if f[1] != "" {
			fmt.Fprintf(&b, "  %-11s %s\n", f[0]+":", f[1])
		}
	}
	writeSteps(&b, "what to do:", k.Advice())
	return b.String()
}

// podText names the pod, container and restart count a text printed; "" when none.
func podText(k *hostoom.TextKill) string {
	var parts []string
	if k.Pod != "" {
		if k.Namespace != "" {
			parts = append(parts, k.Namespace+"/"+k.Pod)
		} else {
			parts = append(parts, k.Pod)
		}
	}
	if k.Container != "" {
		parts = append(parts, "container "+k.Container)
	}
	if k.Restarts >= 0 {
		parts = append(parts, fmt.Sprintf("restart count %d", k.Restarts))
	}
	return strings.Join(parts, ", ")
}

// ownerText names the kill's owner; "" when none is known.
func ownerText(o hostoom.Owner) string {
	switch o.Kind {
	case "":
		return ""
	case hostoom.OwnerPod:
		return "pod " + o.PodUID + prefixed(", container ", o.ContainerID)
	case hostoom.OwnerContainer:
		return "container " + o.ContainerID
	case hostoom.OwnerSlurm:
		return "Slurm job " + o.SlurmJob + prefixed(" step ", o.SlurmStep)
	case hostoom.OwnerUnit:
		return "systemd unit " + o.Unit
	case hostoom.OwnerNode:
		return "the node"
	}
	return "cgroup " + o.Path
}
