// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"cmp"
	"regexp"
	"strings"
)

// describeDoc reads `kubectl describe` (pkg/describe: tabwriter-aligned
// labels, LEVEL_n two spaces each): a pod's containers and its Events.
type describeDoc struct {
	named              bool
	pod, ns, node      string
	podReason, podMsg  string
	podLine            int64
	section            string
	conts              []*describedContainer
	cur                *describedContainer
	contIndent         int
	term               *termination
	termIndent         int
	limits             bool
	limitsIndent       int
	events             []describedEvent
	eventsHeader, done bool
}

type describedContainer struct {
	name, id string
	restarts int64
	limit    int64
	terms    []termination
}

// termination is a State or Last State: Terminated block.
type termination struct {
	reason, exit, finished string
	line                   int64
}

type describedEvent struct {
	reason, message string
	count, line     int64
}

func (d *describeDoc) line(n int64, l string) bool {
	if strings.TrimSpace(l) == "" {
		return !d.done
	}
	indent := indentOf(l)
	key, value, isKey := keyValue(l)
	if indent == 0 {
		if !isKey || key == "Name" && d.named || kernelLine(l) {
			return false
		}
		d.section, d.cur, d.term, d.limits = key, nil, nil, false
		switch key {
		case "Name":
			d.named, d.pod = true, value
		case "Namespace":
			d.ns = value
		case "Node":
			d.node, _, _ = strings.Cut(value, "/")
		case "Reason":
			d.podReason, d.podLine = value, n
		case "Message":
			d.podMsg = value
		}
		return true
	}
	switch d.section {
	case "Containers", "Init Containers":
		d.container(n, l, indent, key, value, isKey)
	case "Events":
		d.event(n, l)
	}
	return true
}

func (d *describeDoc) container(n int64, l string, indent int, key, value string, isKey bool) {
	if d.cur == nil || indent <= d.contIndent {
		if isKey && value == "" && strings.HasSuffix(strings.TrimSpace(l), ":") && len(d.conts) < maxRows {
			d.cur = &describedContainer{name: key, restarts: -1}
			d.conts, d.contIndent, d.term, d.limits = append(d.conts, d.cur), indent, nil, false
		}
		return
	}
	if d.term != nil && indent <= d.termIndent {
		d.term = nil
	}
	if d.limits && indent <= d.limitsIndent {
		d.limits = false
	}
	if !isKey {
		return
	}
	c := d.cur
	switch {
	case d.term != nil:
		switch key {
		case "Reason":
			d.term.reason, d.term.line = value, n
		case "Exit Code":
			d.term.exit = value
		case "Finished":
			d.term.finished = value
		}
	case d.limits:
		if key == "memory" {
			c.limit = Quantity(value)
		}
	case key == "State" || key == "Last State":
		if value == "Terminated" {
			c.terms = append(c.terms, termination{line: n})
			d.term, d.termIndent = &c.terms[len(c.terms)-1], indent
		}
	case key == "Container ID":
		c.id = value
		if i := strings.Index(value, "://"); i >= 0 {
			c.id = value[i+3:]
		}
	case key == "Restart Count":
		c.restarts = leadingInt(value)
	case key == "Limits":
		d.limits, d.limitsIndent = true, indent
	}
}

// wideSplitRe splits tabwriter columns: two spaces or more, or a tab.
var wideSplitRe = regexp.MustCompile(`\t+ *| {2,}\t*`)

// event reads a row of the Events table: Type, Reason, Age, From, Message.
func (d *describeDoc) event(n int64, l string) {
	f := wideSplitRe.Split(strings.TrimSpace(l), 5)
	if !d.eventsHeader {
		d.eventsHeader = len(f) >= 2 && f[0] == "Type" && f[1] == "Reason"
		return
	}
	if len(f) < 5 || f[0] != "Warning" && f[0] != "Normal" || len(d.events) >= maxRows {
		return
	}
	d.events = append(d.events, describedEvent{reason: f[1], message: f[4], count: repeats(f[2]), line: n})
}

func (d *describeDoc) end() []TextKill {
	var out []TextKill
	type at struct{ c, t int }
	var oomed []at // each OOMKilled termination: one kill
	for ci, c := range d.conts {
		for ti, t := range c.terms {
			if t.reason == "OOMKilled" {
				oomed = append(oomed, at{ci, ti})
			}
		}
	}
	kills := make([]TextKill, len(oomed))
	for i, o := range oomed {
		c, t := d.conts[o.c], d.conts[o.c].terms[o.t]
		kills[i] = d.own(textKill(KillReport{Kind: PodOOMKilled, Constraint: ConstraintCgroup, Container: c.name,
			ContainerID: c.id, Limit: c.limit, Reason: "OOMKilled"}, t.line, 0), c)
	}
	joined := make([]bool, len(kills))
	evictedAt := -1
	if d.podReason == reasonEvicted {
		if s, ok := eventKill(reasonEvicted, d.podMsg); ok {
			evictedAt = len(kills)
			kills = append(kills, d.own(textKill(s, d.podLine, 0), nil))
			joined = append(joined, false)
		}
	}
	for _, e := range d.events {
		s, ok := eventKill(e.reason, e.message)
		if !ok {
			continue
		}
		switch i := d.joins(e.reason, s, kills, joined, len(oomed)); {
		case e.reason == reasonEvicted && evictedAt >= 0 && !joined[evictedAt]:
			joined[evictedAt] = true
			k := &kills[evictedAt]
			k.Statements++
			k.Count = max(k.Count, e.count)
		case i >= 0:
			joined[i] = true
			k := &kills[i]
			cont, id, limit, ref, node := k.Container, k.ContainerID, k.Limit, k.Ref, k.Node
			k.KillReport = s // the kernel's line: what it says decides the verdict
			k.Container, k.ContainerID, k.Ref, k.Node = cont, id, ref, cmp.Or(s.Node, node)
			k.Limit = max(s.Limit, limit)
			if e.count > 1 {
				k.Count = e.count
			}
			k.Statements++
		default:
			out = append(out, d.own(textKill(s, e.line, e.count), nil))
		}
	}
	return append(kills, out...)
}

// joins is the termination an OOMKilling event is of: the one whose
// container the kernel's line names, else the pod's only OOMKilled one.
func (d *describeDoc) joins(reason string, s KillReport, kills []TextKill, joined []bool, terms int) int {
	if reason != reasonOOMKilling {
		return -1
	}
	for i := range terms {
		if id := kills[i].ContainerID; !joined[i] && id != "" && s.Cgroup != "" && strings.Contains(s.Cgroup, id) {
			return i
		}
	}
	if terms == 1 && !joined[0] {
		return 0
	}
	return -1
}

// own sets the pod's facts on a kill, and the container's restart count;
// a Node's (no Namespace: nodes are cluster-scoped) names the node.
func (d *describeDoc) own(k TextKill, c *describedContainer) TextKill {
	if d.ns == "" {
		k.Node = cmp.Or(k.Node, d.pod)
		return k
	}
	k.Pod, k.Namespace, k.Node = d.pod, d.ns, cmp.Or(k.Node, d.node)
	if c != nil {
		k.Restarts = c.restarts
	}
	return k
}
