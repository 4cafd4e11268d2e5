// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/attemptmemory"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// One finding per failure. A failure is stated by several records of one
// input: the allocator's report of the request it could not serve (the BFC
// warning and its dump, a cudaMallocAsync refusal), the status an error line
// logs, and the exception the program raised. The records of one failure are
// gathered thus, in order:
//
//   - a failure record opens a failure, or joins the one open;
//   - a record that holds the status the program raised (a Python traceback
//     or exception line) ends its failure: the next failure record opens a
//     new one;
//   - a failure record logged the incident window (one minute, the
//     connector's default) or more after the open failure's last record, both
//     dated by their log headers, opens a new one, as the connector counts a
//     new incident.
//
// So a job that failed once and logged its failure three times has one
// finding, and failures a program caught and logged one after the other stay
// several findings. Failures that no exception ends and that come within a
// minute of each other (a program that catches several OOMs in a row without
// printing them) are read as one: a known limit.
//
// Allocation attempts are never findings of their own: those that came before
// a failure (after the failure before it) are summarised in it, and those
// that no failure followed are one warning.

// incidentWindowSeconds is the gap in record time that separates failures.
var incidentWindowSeconds = int64(incident.DefaultWindow.Seconds())

// maxHeld bounds the findings held while a failure or an attempt series is
// still open: past it, they are written as they stand. maxRecords bounds the
// records one failure gathers (past it, the next opens a new failure) and
// the attempt lines a finding lists (past it, attempts are only counted).
const (
	maxHeld    = 1024
	maxRecords = 256
)

// gatherer turns the findings of the records of one input into what is
// printed: it holds findings in line order until nothing before them can
// change.
type gatherer struct {
	emit func(*Finding) error
	held []*Finding
	// open is the failure that later records may still join; nil when none.
	open      *Finding
	openAt    int64 // record time of open's last record; 0 when not dated
	openEnded bool  // open holds the raised status
	// attempts is the warning of the attempts no failure has taken yet.
	attempts *Finding
	// seen is what the processor remembers of the input's attempts for its
	// failure records (the input is one job): see processorRetry.
	seen *attemptmemory.Memory
}

// add takes the finding of one record (one failure or one warning).
func (g *gatherer) add(f *Finding, text string) error {
	switch {
	case f.Failure != nil:
		g.failure(f, text)
	case f.Warning.Kind == oom.WarningAllocationAttempt:
		g.attempt(f)
	default:
		g.held = append(g.held, f)
	}
	if len(g.held) > maxHeld {
		return g.flush()
	}
	return g.write()
}

func (g *gatherer) failure(f *Finding, text string) {
	at, dated := recordTime(text)
	g.processorRetry(f, at, dated)
	ended := raisedStatus(text)
	if o := g.open; o != nil && !g.openEnded && len(o.Lines) < maxRecords &&
		(!dated || g.openAt == 0 || at-g.openAt < incidentWindowSeconds) {
		o.Lines = append(o.Lines, f.Line)
		o.Later = append(o.Later, f.Failure)
		g.takeAttempts(o)
		g.addRecordAttempts(o, f, text)
		g.openEnded = ended
		if dated {
			g.openAt = at
		}
		return
	}
	g.takeAttempts(f)
	g.addRecordAttempts(f, f, text)
	g.open, g.openEnded, g.openAt = f, ended, 0
	if dated {
		g.openAt = at
	}
	g.held = append(g.held, f)
}

// takeAttempts gives the attempts no failure has taken to failure f.
func (g *gatherer) takeAttempts(f *Finding) {
	a := g.attempts
	if a == nil {
		return
	}
	g.attempts = nil
	f.Attempts.merge(&a.Attempts)
	for i, h := range g.held {
		if h == a {
			g.held = append(g.held[:i], g.held[i+1:]...)
			break
		}
	}
}

// addRecordAttempts counts the attempts inside a failure's own record (a
// refusal logged in the lines the exception's record took): the record's
// Report.Attempts, what the processor writes as xla.oom.attempts. A lone
// refusal of the very request that failed (the platform allocator logs the
// driver's refusal of the request itself) is the failure, and neither
// counts it.
func (g *gatherer) addRecordAttempts(f, rec *Finding, text string) {
	n := rec.Failure.Attempts
	if n == 0 {
		return
	}
	var first, last oom.Size
	if w, ok := oom.Default().RecognizeWarning(text); ok && w.Kind == oom.WarningAllocationAttempt && w.Attempts == n {
		first, last = w.Requested, w.Last
	}
	f.Attempts.add(n, first, last, oom.Size{}, oom.Size{})
}

func (g *gatherer) attempt(f *Finding) {
	w := f.Warning
	g.memory().Attempted(0, max(w.Attempts, 1), time.Time{})
	if g.attempts == nil {
		g.attempts = f
		g.held = append(g.held, f)
	} else if len(g.attempts.Lines) < maxRecords {
		g.attempts.Lines = append(g.attempts.Lines, f.Line)
	}
	a := &g.attempts.Attempts
	a.add(max(w.Attempts, 1), w.Requested, w.Last, w.Free, w.Capacity)
	if len(a.Lines) < maxRecords {
		a.Lines = append(a.Lines, f.Line)
	}
}

// processorRetry gives the attributes of a failure's record the verdict the
// processor writes on it: the processor reads the record with the attempts
// it remembers of the job and the verdict an earlier record of the same
// failure was given (internal/attemptmemory), which gathers them as this
// file does but for the raised status: it ends only the verdict there, and
// knows it by the exception the record's report names.
func (g *gatherer) processorRetry(f *Finding, at int64, dated bool) {
	var date time.Time
	if dated {
		date = time.Unix(at, 0)
	}
	given := g.memory().Failed(0, date, time.Time{}, f.Failure.ExceptionType != "")
	v, ok := f.Attributes.Get(oomattr.Retry)
	if !ok {
		return
	}
	f.Attributes.PutStr(oomattr.Retry, g.memory().Settle(0, given, v.Str(), func(refused int) string {
		return oom.RetryVerdict(f.Failure, refused)
	}))
}

func (g *gatherer) memory() *attemptmemory.Memory {
	if g.seen == nil {
		g.seen = attemptmemory.New(incident.DefaultWindow, 1, 0)
	}
	return g.seen
}

// write writes the held findings that nothing can change any more: those
// before the open failure and the open attempts.
func (g *gatherer) write() error {
	n := 0
	for n < len(g.held) && g.held[n] != g.attempts && (g.held[n] != g.open || g.openEnded) {
		n++
	}
	if n == 0 {
		return nil
	}
	if g.open != nil && g.openEnded {
		for _, h := range g.held[:n] {
			if h == g.open {
				g.open = nil
			}
		}
	}
	return g.writeN(n)
}

// flush writes every held finding: at the end of the input, or when too many
// are held.
func (g *gatherer) flush() error {
	g.open, g.attempts = nil, nil
	return g.writeN(len(g.held))
}

func (g *gatherer) writeN(n int) error {
	out := g.held[:n]
	g.held = append(g.held[:0:0], g.held[n:]...)
	for _, f := range out {
		f.Attempts.close()
		if f.Failure == nil && f.Warning.Kind == oom.WarningAllocationAttempt {
			f.Warning = attemptWarning(f.Warning, &f.Attempts)
		}
		decideRetry(f)
		if err := g.emit(f); err != nil {
			return err
		}
	}
	return nil
}

// attemptWarning is the warning of a whole series: the first attempt's, with
// the series' figures.
func attemptWarning(first *oom.Warning, a *Attempts) *oom.Warning {
	w := *first
	w.Attempts, w.Requested, w.Last = a.Count, a.First, oom.Size{}
	if a.Count > 1 {
		w.Last = a.Last
	}
	if a.Free.Known {
		w.Free, w.Capacity = a.Free, a.Capacity
	}
	return &w
}

// raisedStatus reports whether a record holds the status the program raised:
// a Python traceback or an exception line ("jax.errors.JaxRuntimeError:
// RESOURCE_EXHAUSTED: ...", "XlaRuntimeError: ...", "ValueError: ...").
func raisedStatus(text string) bool {
	if strings.Contains(text, "Traceback (most recent call last)") {
		return true
	}
	for line := range strings.Lines(text) {
		if isExceptionLine(strings.TrimLeft(line, " \t")) {
			return true
		}
	}
	return false
}

// isExceptionLine reports whether l starts with a dotted Python name that
// ends in Error or Exception, then ": ".
func isExceptionLine(l string) bool {
	i := 0
	for i < len(l) && (isWordByte(l[i]) || l[i] == '.' && i > 0) {
		i++
	}
	name := l[:i]
	return i > 0 && !isDigit(l[0]) && strings.HasPrefix(l[i:], ": ") &&
		(strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception"))
}

// recordTime reads the time of day of a record's log header (absl/glog
// "E1126 11:16:43.148", TSL/ISO "2025-09-12 07:02:43", vLLM "ERROR 09-12
// 07:23:02", behind a Ray prefix), in seconds, from the month and day on: a
// year is not always printed, and only the gap between two records of one
// job is read (a gap across New Year reads as negative: one failure).
func recordTime(text string) (int64, bool) {
	if i := strings.Index(text, ") "); i > 0 && text[0] == '(' && i < 64 {
		text = text[i+2:]
	}
	b := []byte(text)
	var month, day, clock int
	switch {
	case shape(b, 0, "####-##-##?##:##:##"):
		month, day, clock = 5, 8, 11
	case len(b) > 0 && strings.IndexByte("IWEF", b[0]) >= 0 && shape(b, 1, "#### ##:##:##"):
		month, day, clock = 1, 3, 6
	default:
		sp := strings.IndexByte(text, ' ')
		if sp < 0 || !shape(b, sp, " ##-## ##:##:##") {
			return 0, false
		}
		month, day, clock = sp+1, sp+4, sp+7
	}
	num := func(i int) int { return int(b[i]-'0')*10 + int(b[i+1]-'0') }
	t := time.Date(2000, time.Month(num(month)), num(day), num(clock), num(clock+3), num(clock+6), 0, time.UTC)
	return t.Unix(), true
}
