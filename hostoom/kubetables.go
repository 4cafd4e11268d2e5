// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// column is a table header's cell: kubectl's printers align cells by tabwriter, so a row's cell starts where its header does.
type column struct {
	name  string
	start int
}

// tableDoc reads `kubectl get pods` (STATUS OOMKilled) or `kubectl get events` / `kubectl events` (REASON OOMKilling,
// SystemOOM, Evicted), with or without NAMESPACE, -o wide, and the pre-1.14 columns (COUNT, KIND, SOURCE).
type tableDoc struct {
	cols   []column
	events bool
	header bool
	kills  []TextKill
}

// newTable is the reader of a table whose header is l, nil if l is not one.
func newTable(l string) document {
	if !strings.HasPrefix(l, "NAME") && !strings.HasPrefix(l, "LAST") {
		return nil
	}
	var cols []column
	for i := 0; i < len(l); {
		j := i
		for j < len(l) && !cellEnd(l, j) {
			j++
		}
		cols = append(cols, column{name: l[i:j], start: i})
		for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
			j++
		}
		i = j
	}
	t := &tableDoc{cols: cols}
	switch {
	case t.index("STATUS") >= 0 && t.index("RESTARTS") >= 0 && t.index("NAME") >= 0:
	case t.index("REASON") >= 0 && t.index("MESSAGE") >= 0 && (t.index("LAST SEEN") >= 0 || t.index("LASTSEEN") >= 0):
		t.events = true
	default:
		return nil
	}
	return t
}

// cellEnd: a header cell ends at a tab or two blanks ("LAST SEEN" is one cell).
func cellEnd(l string, j int) bool {
	return l[j] == '\t' || l[j] == ' ' && (j+1 == len(l) || l[j+1] == ' ' || l[j+1] == '\t')
}

func (t *tableDoc) index(name string) int {
	for i, c := range t.cols {
		if c.name == name {
			return i
		}
	}
	return -1
}

// cells cuts a row at its header's starts; ok false when a cell does not start at a column's start.
func (t *tableDoc) cells(l string) (cells []string, ok bool) {
	cells = make([]string, len(t.cols))
	for i, c := range t.cols {
		if c.start >= len(l) {
			break
		}
		if i > 0 && l[c.start-1] != ' ' && l[c.start-1] != '\t' {
			return nil, false
		}
		end := len(l)
		if i+1 < len(t.cols) && t.cols[i+1].start < end {
			end = t.cols[i+1].start
		}
		cells[i] = strings.TrimSpace(l[c.start:end])
	}
	return cells, true
}

func (t *tableDoc) cell(cells []string, name string) string {
	if i := t.index(name); i >= 0 {
		return cells[i]
	}
	return ""
}

func (t *tableDoc) line(n int64, l string) bool {
	if !t.header {
		t.header = true
		return true
	}
	if strings.TrimSpace(l) == "" || l[0] == ' ' || l[0] == '\t' || kernelLine(l) {
		return false
	}
	cells, ok := t.cells(l)
	if !ok {
		return false
	}
	if t.events {
		t.event(n, cells)
		return true
	}
	if status := t.cell(cells, "STATUS"); status == "OOMKilled" || status == "Init:OOMKilled" {
		k := textKill(KillReport{Kind: PodOOMKilled, Constraint: ConstraintCgroup, Node: t.cell(cells, "NODE"), Reason: "OOMKilled"}, n, 0)
		k.Pod, k.Namespace, k.Restarts = t.cell(cells, "NAME"), t.cell(cells, "NAMESPACE"), leadingInt(t.cell(cells, "RESTARTS"))
		t.kills = append(t.kills, k)
	}
	return true
}

func (t *tableDoc) event(n int64, cells []string) {
	s, ok := eventKill(t.cell(cells, "REASON"), t.cell(cells, "MESSAGE"))
	if !ok {
		return
	}
	count := repeats(t.cell(cells, "LAST SEEN"))
	if c := leadingInt(t.cell(cells, "COUNT")); c > 0 {
		count = c
	}
	k := textKill(s, n, count)
	k.Namespace = t.cell(cells, "NAMESPACE")
	kind, name, _ := strings.Cut(t.cell(cells, "OBJECT"), "/")
	if name == "" { // before 1.14: NAME and KIND
		kind, name = strings.ToLower(t.cell(cells, "KIND")), t.cell(cells, "NAME")
		name, _, _ = strings.Cut(name, ".") // "<pod>.<event id>"
	}
	switch kind {
	case "pod", "Pod":
		k.Pod = name
	case "node", "Node":
		k.Node = name
	}
	t.kills = append(t.kills, k)
}

func (t *tableDoc) end() []TextKill { return t.kills }

// maxObjectBytes bounds an object's text (a Pod is a few KiB; a List of thousands is MiBs).
const maxObjectBytes = 16 << 20

// objectDoc reads `kubectl get pod -o yaml|json` (a Pod, or a List of them, or Events) with PodKills.
type objectDoc struct {
	json  bool
	yaml  func(in []byte, out any) error
	first int64
	text  bytes.Buffer
	over  bool
	ended bool
}

func (o *objectDoc) line(n int64, l string) bool {
	if o.ended {
		return false
	}
	if o.first == 0 {
		o.first = n
	} else if !o.json && !yamlLine(l) {
		return false
	}
	if o.text.Len()+len(l) > maxObjectBytes {
		o.over, o.text = true, bytes.Buffer{}
	}
	if !o.over {
		o.text.WriteString(l)
		o.text.WriteByte('\n')
	}
	o.ended = o.json && strings.TrimRight(l, " \t") == "}"
	return true
}

// yamlLine: a line of the block YAML kubectl prints (a top-level key, a list item, an indented line).
func yamlLine(l string) bool {
	if l == "" || l[0] == ' ' || l[0] == '-' {
		return true
	}
	k, v, ok := strings.Cut(l, ":")
	return ok && (v == "" || v[0] == ' ') && !strings.ContainsAny(k, " \t\"'")
}

func (o *objectDoc) end() []TextKill {
	var obj map[string]any
	decode := o.yaml
	if o.json {
		decode = json.Unmarshal
	}
	if o.over || decode(o.text.Bytes(), &obj) != nil {
		return nil
	}
	items := []any{obj}
	if list, ok := obj["items"].([]any); ok {
		items = list
	}
	var out []TextKill
	for _, it := range items {
		m, _ := it.(map[string]any)
		out = append(out, objectKills(m, o.first)...)
	}
	return out
}

// objectKills reads one Pod's OOMKilled terminations, or one Event's kill.
func objectKills(obj map[string]any, line int64) []TextKill {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	if kind, _ := obj["kind"].(string); kind == "Event" {
		reason, _ := obj["reason"].(string)
		message, _ := obj["message"].(string)
		s, ok := eventKill(reason, message)
		if !ok {
			return nil
		}
		k := textKill(s, line, number(obj["count"]))
		involved, _ := obj["involvedObject"].(map[string]any)
		switch iname, _ := involved["name"].(string); involved["kind"] {
		case "Pod":
			k.Pod = iname
		case "Node":
			k.Node = iname
		}
		k.Namespace = ns
		return []TextKill{k}
	}
	spec, _ := obj["spec"].(map[string]any)
	status, _ := obj["status"].(map[string]any)
	node, _ := spec["nodeName"].(string)
	var out []TextKill
	for _, s := range PodKills(obj) {
		s.Node = node
		s.Limit = Quantity(specLimit(spec, s.Container))
		k := textKill(s, line, 0)
		k.Pod, k.Namespace, k.Restarts = name, ns, restartCount(status, s.Container)
		out = append(out, k)
	}
	return out
}

// specLimit is a container's resources.limits.memory as written.
func specLimit(spec map[string]any, container string) string {
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := spec[list].([]any)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			if cm["name"] != container {
				continue
			}
			res, _ := cm["resources"].(map[string]any)
			limits, _ := res["limits"].(map[string]any)
			if v, ok := limits["memory"].(string); ok {
				return v
			}
			if n := number(limits["memory"]); n >= 0 {
				return strconv.FormatInt(n, 10)
			}
		}
	}
	return ""
}

// restartCount is a container's status.restartCount, -1 where absent.
func restartCount(status map[string]any, container string) int64 {
	for _, list := range []string{"initContainerStatuses", "containerStatuses"} {
		cs, _ := status[list].([]any)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			if cm["name"] == container {
				return number(cm["restartCount"])
			}
		}
	}
	return -1
}

// number is a decoded integer (JSON's float64, YAML's int), -1 for none.
func number(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int:
		return int64(n)
	case int64:
		return n
	}
	return -1
}
