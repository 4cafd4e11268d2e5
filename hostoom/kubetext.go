// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// TextKill is one kill a platform's state text (kubectl, sacct, seff) shows: a Kill and the facts only it prints.
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
	// YAML decodes `kubectl get -o yaml` (yaml.Unmarshal); nil: YAML is not read, JSON is.
	YAML func(in []byte, out any) error

	doc   document
	first int64 // the document's first line
	last  int64 // its last line read
	kills []TextKill
	spans [][2]int64
}

// MaxSpans bounds the documents' line spans a TextReader remembers for Covers;
// maxRows bounds the rows (events, sacct's) one document keeps.
const (
	MaxSpans = 4096
	maxRows  = 1 << 16
)

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
	if d := r.startDocument(l); d != nil && d.line(n, l) {
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

// startDocument is the reader of the text l begins, nil for none.
func (r *TextReader) startDocument(l string) document {
	if l == "" {
		return nil
	}
	switch c := l[0]; {
	case c == 'N' && strings.HasPrefix(l, "Name:"):
		return &describeDoc{}
	case c == 'N' || c == 'L':
		return newTable(l)
	case c == '{' && strings.TrimSpace(l) == "{":
		return &objectDoc{json: true}
	case r.YAML != nil && (c == 'a' && strings.HasPrefix(l, "apiVersion:") || c == 'k' && strings.HasPrefix(l, "kind:")):
		return &objectDoc{yaml: r.YAML}
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

// kernelLine: a kernel's line ends a document and is the log's (without a header,
// "Memory cgroup out of memory: Killed process …" has a label's shape).
func kernelLine(l string) bool {
	s, ok := ParseLine(logheader.SplitKernel(l).Text)
	return ok && s.Kind.Kernel()
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

// Wants reports whether Line must see l (a document is open, or l may begin one): a caller copies only such a line.
func (r *TextReader) Wants(l string) bool {
	if r.doc != nil {
		return true
	}
	if l == "" {
		return false
	}
	switch l[0] {
	case 'N':
		return strings.HasPrefix(l, "Name:") || strings.HasPrefix(l, "NAME")
	case 'L':
		return strings.HasPrefix(l, "LAST")
	case '{':
		return strings.TrimSpace(l) == "{"
	case 'J':
		return strings.HasPrefix(l, "Job ID:") || strings.HasPrefix(l, "JobID")
	case 'a', 'k':
		return r.YAML != nil && (strings.HasPrefix(l, "apiVersion:") || strings.HasPrefix(l, "kind:"))
	case ' ':
		return strings.HasPrefix(strings.TrimLeft(l, " "), "JobID")
	}
	return false
}
