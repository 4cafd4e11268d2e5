// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// familyDocs is where each message family is described, by its id.
const familyDocs = "https://github.com/xlaoom/xlaoomprocessor/blob/main/docs/message-formats.md#"

// reportHint tells how to turn a failure no family knows into one.
const reportHint = "not a known message family: please open an issue at https://github.com/xlaoom/xlaoomprocessor/issues " +
	"with this record's text, so that it becomes one (CONTRIBUTING.md, \"Adding a new message format\")"

// textPrinter writes findings for a person reading a terminal.
type textPrinter struct {
	w   io.Writer
	n   int // findings written
	buf strings.Builder
}

func (p *textPrinter) finding(f *Finding) error {
	b := &p.buf
	b.Reset()
	if p.n > 0 {
		b.WriteByte('\n')
	}
	p.n++
	switch {
	case f.Report != nil:
		writeFailure(b, f)
	case f.Warning.Kind == oom.WarningAllocationAttempt:
		writeAttempts(b, f)
	default:
		writeWarning(b, f)
	}
	_, err := io.WriteString(p.w, b.String())
	return err
}

func writeFailure(b *strings.Builder, f *Finding) {
	r := f.Report
	what := "XLA out-of-memory failure"
	switch {
	case f.WentOn():
		what = "caught by the program, which went on (not a failure of the job)"
	case f.Generic():
		what = "memory failure, not a known family"
	}
	fmt.Fprintf(b, "%s:%d: %s %s: %s\n", f.Source, f.Line, r.Code, r.Name, what)
	field(b, "category", r.Category)
	field(b, "phase", joinNonEmpty(" · ", r.Phase, prefixed("backend ", r.Backend), prefixed("memory space ", r.MemorySpace)))
	if f.Generic() {
		field(b, "report", reportHint)
	} else {
		field(b, "family", r.Family+"  "+familyDocs+r.Family)
	}
	writeSizes(b, f.Attributes)
	if r.Words != (oom.SparseCoreWords{}) {
		field(b, "words", fmt.Sprintf("offset %d, limit %d, requested %d (SparseCore words)",
			r.Words.Offset, r.Words.Limit, r.Words.Requested))
	}
	field(b, "cause", r.Cause)
	field(b, "retry", retryText(f))
	field(b, "where", where(r))
	field(b, "site", r.Site.String())
	field(b, "held by", holdersText(f.Whole))
	field(b, "instruction", r.Instruction)
	field(b, "attempts", prefixed("after ", f.Attempts.Text()))
	field(b, "also stated at", laterText(f))
	writeBreakdown(b, &r.Breakdown)
	writeSteps(b, "what to do", r.Remediation)
	field(b, "docs", r.DocURL)
}

func writeWarning(b *strings.Builder, f *Finding) {
	w := f.Warning
	writeWarningHead(b, f, "")
	writeSizes(b, f.Attributes)
	if ratio, ok := w.Pressure(); ok {
		field(b, "pressure", strconv.FormatFloat(100*ratio, 'f', 1, 64)+" % of the limit")
	}
	field(b, "where", prefixed("device ", w.Device))
}

// writeWarningHead writes a warning's first line, ending in more, and meaning.
func writeWarningHead(b *strings.Builder, f *Finding, more string) {
	w := f.Warning
	fmt.Fprintf(b, "%s:%d: memory warning %s (not an OOM)%s\n", f.Source, f.Line, w.Kind, more)
	field(b, "meaning", w.Explanation)
	field(b, "phase", joinNonEmpty(" · ", w.Phase, prefixed("backend ", w.Backend)))
	field(b, "family", w.Family+"  "+familyDocs+w.Family)
}

// writeAttempts writes the attempts that no failure followed, as one warning.
func writeAttempts(b *strings.Builder, f *Finding) {
	w, a := f.Warning, &f.Attempts
	writeWarningHead(b, f, ": "+plural(int64(a.Count), "refused allocation", "refused allocations")+", no failure followed")
	field(b, "attempts", a.Text())
	if a.First.Known {
		field(b, "first asked", sizeText(a.First.Bytes))
	}
	if a.Count > 1 && a.Last.Known {
		field(b, "last refused", sizeText(a.Last.Bytes))
	}
	if a.Free.Known && a.Capacity.Known {
		field(b, "CUDA free / total", oom.HumanBytes(a.Free.Bytes)+" / "+oom.HumanBytes(a.Capacity.Bytes))
	}
	field(b, "where", prefixed("device ", w.Device))
	if len(f.Lines) > 1 {
		field(b, "lines", linesText(f.Lines))
	}
	writeSteps(b, "what to do", oom.WarningAdvice(w))
}

// laterText names the later records stating the failure and the programs
// they name that the first does not: "line 64 (program jit_temps)".
func laterText(f *Finding) string {
	if len(f.Later) == 0 {
		return ""
	}
	var programs []string
	for _, r := range f.Later {
		if r.Program != "" && r.Program != f.Report.Program && !slices.Contains(programs, r.Program) {
			programs = append(programs, r.Program)
		}
	}
	s := "line "
	if len(f.Later) > 1 {
		s = "lines "
	}
	s += linesText(f.Lines[1:])
	if len(programs) > 0 {
		s += " (program " + strings.Join(programs, ", ") + ")"
	}
	return s
}

// linesText lists line numbers, the first and last few of a long list.
func linesText(lines []int) string {
	const ends = 3
	var parts []string
	for i, l := range lines {
		if len(lines) > 2*ends+1 && i == ends {
			parts = append(parts, "…")
		}
		if len(lines) <= 2*ends+1 || i < ends || i >= len(lines)-ends {
			parts = append(parts, strconv.Itoa(l))
		}
	}
	return strings.Join(parts, ", ")
}

// writeSizes lists every size attribute, in order, but those shown with
// the allocations (culprit, largest input, holder).
func writeSizes(b *strings.Builder, attrs pcommon.Map) {
	for k, v := range attrs.All() {
		if v.Type() != pcommon.ValueTypeInt || !strings.HasSuffix(k, ".size") ||
			k == oomattr.CulpritSize || k == oomattr.LargestInputSize || k == oomattr.HolderSize {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(k, "xla.oom."), ".size")
		name = strings.NewReplacer("_", " ", ".", " ").Replace(name)
		field(b, name, sizeText(v.Int()))
	}
}

func writeBreakdown(b *strings.Builder, bd *oom.Breakdown) {
	if i := bd.Culprit(); i >= 0 {
		field(b, "culprit", allocationText(&bd.Allocations[i]))
	}
	if i := bd.LargestInput(); i >= 0 {
		field(b, "largest input", allocationText(&bd.Allocations[i]))
	}
	n := min(topAllocations, len(bd.Allocations))
	if n == 0 {
		return
	}
	b.WriteString("  largest allocations\n")
	for i := range n {
		fmt.Fprintf(b, "    %d. %s\n", i+1, allocationText(&bd.Allocations[i]))
	}
}

func allocationText(a *oom.Allocation) string {
	size := "size not printed"
	if a.Size.Known {
		size = sizeText(a.Size.Bytes)
	}
	return joinNonEmpty("  ", size, a.OpName, prefixed("at ", a.Source()), prefixed("shape ", a.Shape),
		prefixed("type ", a.Type))
}

func where(r *oom.Report) string {
	var replica, partition string
	if r.HasReplica {
		replica = "replica " + strconv.FormatInt(r.Replica, 10)
	}
	if r.HasPartition {
		partition = "partition " + strconv.FormatInt(r.Partition, 10)
	}
	return joinNonEmpty(" · ", prefixed("program ", r.Program), prefixed("device ", r.Device), replica, partition)
}

// holdersText names the executables holding the pool's in-use bytes, most first.
func holdersText(f *assembly.Failure) string {
	if f == nil {
		return ""
	}
	const shown = 3
	var parts []string
	for i, h := range f.Holders {
		if i == shown {
			parts = append(parts, strconv.Itoa(len(f.Holders)-shown)+" more")
			break
		}
		parts = append(parts, h.Program+" "+oom.HumanBytes(h.Bytes)+" ("+plural(int64(h.Chunks), "chunk", "chunks")+")")
	}
	return strings.Join(parts, ", ")
}

// writeSteps writes a numbered list under its title; none when empty.
func writeSteps(b *strings.Builder, title string, steps []string) {
	if len(steps) == 0 {
		return
	}
	b.WriteString("  " + title + "\n")
	for i, step := range steps {
		fmt.Fprintf(b, "    %d. %s\n", i+1, step)
	}
}

// field writes one "  label   value" line; an empty value writes nothing.
func field(b *strings.Builder, label, value string) {
	if value == "" {
		return
	}
	fmt.Fprintf(b, "  %-19s %s\n", label, value)
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), sep)
}

// sizeText prints a byte count as XLA does, and exactly: "1.97 GiB (2110783616 bytes)".
func sizeText(n int64) string {
	exact := strconv.FormatInt(n, 10) + " bytes"
	if n > -1024 && n < 1024 {
		return exact
	}
	return oom.HumanBytes(n) + " (" + exact + ")"
}

// summary writes the closing line; host-memory kills lead, as in the exit status.
func summary(w io.Writer, t *Totals) error {
	failures := plural(t.Failures, "OOM failure", "OOM failures")
	if t.HostKills > 0 {
		failures = hostKillsText(t) + ", " + failures
	}
	if t.Generic > 0 {
		failures += fmt.Sprintf(" (%d not a known family)", t.Generic)
	}
	if t.Caught > 0 {
		failures += ", " + plural(t.Caught, "OOM", "OOMs") + " caught by the program"
	}
	warnings := plural(t.Warnings, "memory warning", "memory warnings")
	if t.Attempts > 0 {
		warnings += ", " + plural(t.Attempts, "allocation attempt", "allocation attempts") + " (not failures)"
	}
	line := fmt.Sprintf("%s, %s in %s (%s) from %s", failures, warnings,
		plural(t.Records, "record", "records"), oom.HumanBytes(t.Bytes), plural(int64(t.Inputs), "input", "inputs"))
	if t.Over > 0 {
		line += fmt.Sprintf("; %s over %s not read, as the processor passes such records unchanged (max_scan_size)",
			plural(t.Over, "record", "records"), oom.HumanBytes(int64(maxScanSize)))
	}
	if t.Unreadable > 0 {
		line += "; " + plural(int64(t.Unreadable), "input", "inputs") + " could not be read"
	}
	_, err := fmt.Fprintf(w, "summary: %s\n", line)
	return err
}

// hostKillsText counts the host-memory kills with the last one's verdict.
func hostKillsText(t *Totals) string {
	what := "not XLA failures"
	if t.HostKills == 1 {
		what = "not an XLA failure"
	}
	switch t.LastHostRetry {
	case oom.RetryFutile:
		what += "; the last futile: a restart fails the same way"
	case oom.RetryMayHelp:
		what += "; the last may be helped by a restart"
	}
	return plural(t.HostKills, "host-memory kill", "host-memory kills") + " (" + what + ")"
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// exitStatus is the status for what t counted (see the Exit constants).
func exitStatus(t *Totals) int {
	switch {
	case t.Unreadable > 0:
		return ExitError
	case t.Failures > 0 && t.LastRetry == oom.RetryFutile, t.HostKills > 0 && t.LastHostRetry == oom.RetryFutile:
		return ExitFutile
	case t.Failures > 0 || t.HostKills > 0:
		return ExitFound
	}
	return ExitNone
}

// retryText says the verdict, its rule and, when known, how far demand must shrink.
func retryText(f *Finding) string {
	s := f.Retry + retryMeaning[f.Retry] + ruleText(f.Whole.Decision)
	if f.FitFraction > 0 {
		s += "; fits at " + strconv.FormatFloat(f.FitFraction, 'f', 2, 64) + "× the per-device demand"
	}
	return s
}

// ruleText is " (rule: NAME)", " (rule NAME lacks FACT)", or "" for no rule.
func ruleText(d oom.Decision) string {
	switch {
	case d.Missing != "":
		return " (rule " + d.Rule + " lacks " + d.Missing + ")"
	case d.Rule != "":
		return " (rule: " + d.Rule + ")"
	}
	return ""
}

var retryMeaning = map[string]string{
	oom.RetryFutile:  ": the same program, unchanged, fails the same way again",
	oom.RetryMayHelp: ": it depended on something outside the program; a restart may succeed",
	oom.RetryUnknown: ": the log does not show whether a restart can succeed",
}

// jsonFinding is one line of --json output: one finding, with the attributes
// and severity the processor writes, and its records' first lines.
type jsonFinding struct {
	Source      string         `json:"source"`
	Line        int            `json:"line"`
	Severity    string         `json:"severity"`
	Attributes  map[string]any `json:"attributes"`
	Records     []int          `json:"records"`
	Attempts    *jsonAttempts  `json:"attempts,omitempty"`
	Retry       string         `json:"retry,omitempty"`
	FitFraction float64        `json:"fit_fraction,omitempty"`
}

// jsonAttempts is Attempts.
type jsonAttempts struct {
	Count   int    `json:"count"`
	Summary string `json:"summary"`
	jsonAttemptSizes
	Series     []jsonAttemptSeries `json:"series"`
	MoreSeries int                 `json:"more_series,omitempty"`
	Records    []int               `json:"records"`
}

// jsonAttemptSizes, flattened into jsonAttempts, are absent where not printed.
type jsonAttemptSizes struct {
	First *int64 `json:"first_requested_bytes,omitempty"`
	Last  *int64 `json:"last_refused_bytes,omitempty"`
	Free  *int64 `json:"cuda_free_bytes,omitempty"`
	Total *int64 `json:"cuda_total_bytes,omitempty"`
}

type jsonAttemptSeries struct {
	Steps   int    `json:"steps"`
	First   *int64 `json:"first_bytes,omitempty"`
	Last    *int64 `json:"last_bytes,omitempty"`
	BackOff bool   `json:"back_off"`
	Repeat  int    `json:"repeat"`
}

func jsonSize(s oom.Size) *int64 {
	if !s.Known {
		return nil
	}
	return &s.Bytes
}

func newJSONAttempts(a *Attempts) *jsonAttempts {
	if a.Count == 0 {
		return nil
	}
	j := &jsonAttempts{Count: a.Count, Summary: a.Text(), MoreSeries: a.MoreSeries, Records: a.Lines,
		jsonAttemptSizes: jsonAttemptSizes{First: jsonSize(a.First), Last: jsonSize(a.Last), Free: jsonSize(a.Free),
			Total: jsonSize(a.Capacity)}}
	for i := range a.Series {
		s := &a.Series[i]
		j.Series = append(j.Series, jsonAttemptSeries{Steps: s.Steps, First: jsonSize(s.First), Last: jsonSize(s.Last),
			BackOff: s.BackOff(), Repeat: s.Repeat})
	}
	return j
}

// jsonPrinter writes one JSON object per finding, one per line.
type jsonPrinter struct{ enc *json.Encoder }

func (p *jsonPrinter) finding(f *Finding) error {
	severity := "ERROR"
	if f.Report == nil || f.WentOn() {
		severity = "WARN"
	}
	return p.enc.Encode(jsonFinding{Source: f.Source, Line: f.Line, Severity: severity, Attributes: f.Attributes.AsRaw(),
		Records: f.Lines, Attempts: newJSONAttempts(&f.Attempts), Retry: f.Retry, FitFraction: f.FitFraction})
}
