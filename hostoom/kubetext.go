// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"cmp"
	"regexp"
	"strconv"
	"strings"
)

// TextKill is one kill that a platform's state text shows (kubectl, sacct,
// seff): a Kill and the facts only that text prints.
type TextKill struct {
	Kill
	Pod, Namespace string
	Restarts       int64 // the container's (or pod's) restart count; -1 where not printed
}

// TextReader reads, line by line, the texts people paste of a platform's state rather than its logs:
// `kubectl describe pod`, `kubectl get pod -o yaml|json`, `kubectl get pods`, `kubectl get events` (and oc's),
// sacct and seff. One kill per termination shown; the processor reads Pod and Event objects instead (PodKills).
// Bounded: one document at a time, MaxSpans spans remembered. Not safe for concurrent use.
type TextReader struct {
	doc   document
	first int64 // the document's first line
	last  int64 // its last line read
	kills []TextKill
	spans [][2]int64
}

// MaxSpans bounds the documents' line spans a TextReader remembers for Covers.
const MaxSpans = 4096

// document is one text being read; line reports false when l is not its: it ended before l.
type document interface {
	line(n int64, l string) bool
	end() []TextKill
}

// Line reads line n (from 1, in order), its trailing newline off.
func (r *TextReader) Line(n int64, l string) {
	l = strings.TrimRight(l, "\r")
	if r.doc != nil {
		if r.doc.line(n, l) {
			r.last = n
			return
		}
		r.close()
	}
	if d := startDocument(l); d != nil && d.line(n, l) {
		r.doc, r.first, r.last = d, n, n
	}
}

// End closes the open document and returns every kill read, in order.
func (r *TextReader) End() []TextKill {
	if r.doc != nil {
		r.close()
	}
	return r.kills
}

// Covers reports whether line n was read as part of a document (a log
// reader's statement there is the document's, not a log line's).
func (r *TextReader) Covers(n int64) bool {
	if r.doc != nil && n >= r.first && n <= r.last {
		return true
	}
	for _, s := range r.spans {
		if n >= s[0] && n <= s[1] {
			return true
		}
	}
	return false
}

func (r *TextReader) close() {
	r.kills = append(r.kills, r.doc.end()...)
	if len(r.spans) < MaxSpans {
		r.spans = append(r.spans, [2]int64{r.first, r.last})
	}
	r.doc = nil
}

// startDocument is the reader of the text l begins, nil for none: one
// comparison for most lines.
func startDocument(l string) document {
	if l == "" {
		return nil
	}
	switch c := l[0]; {
	case c == 'N' && strings.HasPrefix(l, "Name:"):
		return &describeDoc{}
	case c == 'N' || c == 'L':
		return newTable(l)
	case c == '{' && strings.TrimSpace(l) == "{", c == 'a' && strings.HasPrefix(l, "apiVersion:"),
		c == 'k' && strings.HasPrefix(l, "kind:"):
		return &objectDoc{json: c == '{'}
	case c == 'J' && strings.HasPrefix(l, "Job ID:"):
		return &seffDoc{}
	case c == 'J' || c == ' ':
		return newSacct(l)
	}
	return nil
}

// Event reasons a kill is read from (kubelet, node-problem-detector).
const (
	reasonOOMKilling = "OOMKilling"
	reasonSystemOOM  = "SystemOOM"
	reasonEvicted    = "Evicted"
)

var repeatRe = regexp.MustCompile(`\(x(\d+) over [^)]*\)`)

// eventKill reads an Event's kill: node-problem-detector's OOMKilling (its
// message the kernel's kill line), kubelet's SystemOOM, a memory eviction.
func eventKill(reason, message string) (KillReport, bool) {
	switch reason {
	case reasonOOMKilling:
		if s, ok := ParseLine(message); ok && s.Kind.Kernel() {
			return s, true
		}
		return KillReport{Kind: KernelKilled, Reason: reasonOOMKilling}, true // the kernel killed; the text says no more
	case reasonSystemOOM:
		if s, ok := ParseLine(message); ok && s.Kind == NodeSystemOOM {
			return s, true
		}
		if strings.HasPrefix(message, "System OOM encountered") { // 1.15: no victim named
			return KillReport{Kind: NodeSystemOOM, Constraint: ConstraintGlobal, Cgroup: "/"}, true
		}
	case reasonEvicted:
		if s, ok := ParseLine(message); ok && s.Kind == Eviction {
			return s, true
		}
	}
	return KillReport{}, false
}

// textKill is a one-statement kill of the text.
func textKill(s KillReport, line, count int64) TextKill {
	s.Ref = line
	if count > 1 {
		s.Count = count
	}
	return TextKill{Kill: Kill{KillReport: s, Tasks: 1, Statements: 1, Complete: true}, Restarts: -1}
}

// repeats is the count an event's age prints ("3m (x3 over 10m)"), 0 for none.
func repeats(age string) int64 {
	if m := repeatRe.FindStringSubmatch(age); m != nil {
		return num(m[1])
	}
	return 0
}

// keyValue splits "Key:   value" (a label of kubectl describe or seff); ok false for another line.
func keyValue(l string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(strings.TrimLeft(l, " \t"), ":")
	if !ok || key == "" || len(key) > 40 || value != "" && value[0] != ' ' && value[0] != '\t' {
		return "", "", false
	}
	for _, c := range key {
		if c != ' ' && c != '-' && c != '_' && c != '/' && c != '.' &&
			(c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return "", "", false
		}
	}
	return key, strings.TrimSpace(value), true
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// leadingInt reads "3" of "3 (2m ago)"; -1 for none.
func leadingInt(s string) int64 {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 {
		return -1
	}
	n, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

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
		if !isKey || key == "Name" && d.named {
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
		if isKey && value == "" && strings.HasSuffix(strings.TrimSpace(l), ":") {
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
	if len(f) < 5 || f[0] != "Warning" && f[0] != "Normal" {
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

// Wants reports whether Line must see l: a document is open, or l may begin
// one. A caller copies only such a line (Line keeps pieces of it).
func (r *TextReader) Wants(l string) bool {
	if r.doc != nil {
		return true
	}
	if l == "" {
		return false
	}
	switch l[0] {
	case 'N', 'L', '{', 'a', 'k', 'J':
		return true
	case ' ':
		return strings.HasPrefix(strings.TrimLeft(l, " "), "JobID")
	}
	return false
}
