// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/internal/stage"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// maxHeld bounds the findings held while a failure or attempts are open;
// maxRecords the record lines a finding lists.
const (
	maxHeld    = 1024
	maxRecords = 256
)

// gatherer makes one finding per failure the stage assembles, one stream per
// input, and holds them in line order until nothing before them can change.
type gatherer struct {
	emit     func(*Finding) error
	held     []*Finding
	stage    *stage.Stage
	open     *Finding // the open failure's
	attempts *Finding // the warning of the attempts no failure has taken yet
	closed   []assembly.Failure
	kills    []hostoom.Kill // the host-memory kills ended, in order
}

// input is the one stream of an input, and its job: an input is one job's
// log, whose attempts a Slurm requeue appends to it.
const (
	input = 0
	job   = 1
)

func newGatherer(emit func(*Finding) error) *gatherer {
	return &gatherer{emit: emit, stage: stage.New(stage.Config{Assembly: assembly.Config{Window: incident.DefaultWindow},
		MemoryWarnings: true, MaxScanSize: maxScanSize})}
}

// record gives the stage one record's text that passed the prefilter.
func (g *gatherer) record(name string, line int, text string) error {
	at, _ := oom.HeaderTime(text)
	in := func(bool) stage.Input { return stage.Input{Stream: input, At: at, Line: line, RepeatJob: job} }
	var t stage.Tags
	g.closed = g.stage.Candidate([]string{text}, stage.Marks{}, in, &t, g.closed)
	g.kills = append(g.kills, t.Ended...) // hostkill.go
	f := &Finding{Source: name, Line: line, Lines: []int{line}}
	switch t.Outcome {
	case stage.Statement: // its attributes are written once it closed (complete)
		f.Report = &t.Report
		g.failure(f, t.FailureID, text)
	case stage.Warning:
		f.Warning = &t.Warning
		f.Attributes = pcommon.NewMap()
		oomattr.PutWarning(t.Warning, f.Attributes)
		if t.Warning.Kind == oom.WarningAllocationAttempt {
			g.attempt(f)
		} else {
			g.held = append(g.held, f)
		}
	default:
	}
	return g.settle()
}

// evidence gives a record that passed no prefilter to the open failure.
func (g *gatherer) evidence(text string) {
	g.closed = g.stage.Evidence(func(bool) stage.Input { return stage.Input{Stream: input} }, text, g.closed)
}

// settle completes the closed failures' findings and writes what is final.
func (g *gatherer) settle() error {
	for i := range g.closed {
		g.complete(&g.closed[i])
	}
	g.closed = g.closed[:0]
	if len(g.held) > maxHeld {
		return g.flush()
	}
	return g.write()
}

// failure takes the finding of a failure statement, the failure id's.
func (g *gatherer) failure(f *Finding, id, text string) {
	if o := g.open; o != nil && o.ID == id {
		if len(o.Lines) < maxRecords {
			o.Lines = append(o.Lines, f.Line)
		}
		o.Later = append(o.Later, f.Report)
		g.takeAttempts(o)
		g.addRecordAttempts(o, f, text)
		return
	}
	f.ID = id
	g.takeAttempts(f)
	g.addRecordAttempts(f, f, text)
	g.open = f
	g.held = append(g.held, f)
}

// complete gives the finding of a closed failure its facts and verdict.
func (g *gatherer) complete(c *assembly.Failure) {
	for _, f := range g.held {
		if f.ID != c.ID || f.Report == nil {
			continue
		}
		f.Whole = c
		f.Report = &c.Report
		f.Retry, f.FitFraction = c.Report.Retry, c.Report.FitFraction
		f.Attributes = pcommon.NewMap()
		oomattr.PutFailure(c, f.Attributes, topAllocations)
		f.Attributes.Remove(oomattr.FailureID) // names the processor's stream, which a file is not
		if g.open == f {
			g.open = nil
		}
		return
	}
}

// takeAttempts gives the attempts no failure has taken to failure f.
func (g *gatherer) takeAttempts(f *Finding) {
	a := g.attempts
	if a == nil {
		return
	}
	g.attempts = nil
	f.Attempts.merge(&a.Attempts)
	g.held = slices.DeleteFunc(g.held, func(h *Finding) bool { return h == a })
}

// addRecordAttempts counts the attempts in a failure's own record, with
// their sizes when it reads as an attempt warning.
func (g *gatherer) addRecordAttempts(f, rec *Finding, text string) {
	n := rec.Report.Attempts
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

// write writes the held findings before the open failure and attempts.
func (g *gatherer) write() error {
	n := 0
	for n < len(g.held) && g.held[n] != g.attempts && g.held[n] != g.open {
		n++
	}
	if n == 0 {
		return nil
	}
	return g.writeN(n)
}

// flush closes the open failure and writes every held finding.
func (g *gatherer) flush() error {
	for _, c := range g.stage.Assembler.Flush(nil) {
		g.complete(&c)
	}
	g.open, g.attempts = nil, nil
	return g.writeN(len(g.held))
}

func (g *gatherer) writeN(n int) error {
	out := g.held[:n]
	g.held = append(g.held[:0:0], g.held[n:]...)
	for _, f := range out {
		f.Attempts.close()
		if f.Report == nil && f.Warning.Kind == oom.WarningAllocationAttempt {
			f.Warning = attemptWarning(f.Warning, &f.Attempts)
		}
		if err := g.emit(f); err != nil {
			return err
		}
	}
	return nil
}

// attemptWarning is the first attempt's warning with the series' figures.
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

// Finding is one XLA OOM failure, stated by one record or several, or one
// memory-pressure warning (the attempts no failure followed are one).
type Finding struct {
	Source string // file name, or "stdin"
	Line   int    // line number of the first line of the finding's first record
	// Report is set for an OOM (Whole.Report once it closed), else Warning.
	Report  *oom.Report
	Warning *oom.Warning
	ID      string            // the failure's id in the stage
	Whole   *assembly.Failure // the failure it closed as
	// Attributes are what the processor writes on the record, but the
	// incident and failure ids (a file has no resource).
	Attributes pcommon.Map
	Lines      []int         // the first lines of every record gathered, Line first
	Later      []*oom.Report // the failures the records after the first state
	Attempts   Attempts      // those the failure came after, or the warning's
	// Retry and FitFraction are the whole failure's (unset on a warning).
	Retry       string
	FitFraction float64
}

// WentOn reports whether the failure's program caught it and went on (not a job failure).
func (f *Finding) WentOn() bool { return f.Whole != nil && f.Whole.Closed == assembly.ClosedWentOn }

// Generic reports whether the failure belongs to no known message family.
func (f *Finding) Generic() bool { return f.Report != nil && f.Report.Family == oom.FamilyGeneric }

// The processor's defaults.
var (
	maxScanSize    = oomrecord.DefaultSources().MaxScanSize
	topAllocations = oomattr.DefaultTopAllocations
)
