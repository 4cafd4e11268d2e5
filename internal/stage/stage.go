// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package stage decides what one log record is and what is written on it,
// with no collector types: its callers are adapters.
package stage // import "github.com/xlaoom/xlaoomprocessor/internal/stage"

import (
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Config is the stage's settings.
type Config struct {
	Assembly       assembly.Config
	MemoryWarnings bool // tag memory-pressure warnings
	HostKillTails  bool // read string bodies that end like a host kill line
	MaxScanSize    int  // a longer text is not read for evidence
}

// Stage is safe for concurrent use; its state is its assembly.Assembler.
type Stage struct {
	cfg        Config
	recognizer *oom.Recognizer
	Assembler  *assembly.Assembler
}

// New returns a stage with no open failure.
func New(cfg Config) *Stage {
	return &Stage{cfg: cfg, recognizer: oom.Default(), Assembler: assembly.New(cfg.Assembly)}
}

// Input is a record's keys (package incident) and times.
type Input struct {
	Resource, Stream uint64
	Job              uint64     // 0: the resource names no job
	RepeatJob        uint64     // assembly.Statement.RepeatJob
	At               time.Time  // the record's time, else its arrival
	Now              time.Time  // its arrival
	Origin           func() any // assembly.Statement.Origin
	Line             int        // the record's first line in its file; 0: unknown
}

// Marks are what a record arrived with.
type Marks struct {
	Tagged    bool // xla.error.code, tagged upstream
	Warned    bool // xla.memory.warning
	RetrySent bool // xla.oom.retry: its sender's verdict, kept
	HostRead  bool // a host statement read upstream
}

// Outcome is what the stage made of a record.
type Outcome uint8

// The outcomes: what Tags hold.
const (
	Untouched     Outcome = iota
	Statement             // Report, FailureID, Opened
	Warning               // Warning
	HostStatement         // Host, written without a count
	HostKill              // Kill, and Host
)

// Tags are what the stage decided to write on a record.
type Tags struct {
	Outcome   Outcome
	Report    oom.Report // its Retry: "" when the record's own verdict is kept
	FailureID string
	Opened    time.Time // the time the failure's incident is bucketed by
	Warning   oom.Warning
	Host      hostoom.KillReport
	Kill      hostoom.Kill
	Ended     []hostoom.Kill // the kills that ended at the record, each once
}

// Candidate decides a record whose texts passed the prefilter; in gives its keys.
func (s *Stage) Candidate(texts []string, marks Marks, in func(statement bool) Input, t *Tags, closed []assembly.Failure) []assembly.Failure {
	t.Outcome = Untouched
	if marks.Tagged {
		return closed // tagged upstream: processing twice equals processing once
	}
	var found oom.Finding
	if s.mayBeOOM(texts) { // else the prefilter passed it for a host kill's or a start-up line's cue
		found = oomrecord.Read(s.recognizer, texts, s.cfg.MemoryWarnings)
	}
	switch found.Found {
	case oom.FoundNothing:
		read := false
		if read, closed = s.Startup(in, texts, closed); !read { // a start-up line is no host kill's
			if closed = s.Texts(in(true), marks, texts, t, closed); t.Outcome == HostKill { // in(true): its Origin
				return closed
			}
		}
		return s.Evidence(in, texts[0], closed)
	case oom.FoundWarning:
		if marks.Warned {
			return closed
		}
		t.Outcome, t.Warning = Warning, found.Warning
		if found.Warning.Kind == oom.WarningAllocationAttempt {
			i := in(false)
			closed = s.Assembler.Attempted(i.Stream, found.Warning.Attempts, i.Now, closed)
		}
		if found.Warning.Kind == oom.WarningRematerialization {
			_, closed = s.Startup(in, texts, closed) // the compiler's plan
		}
		return s.Evidence(in, texts[0], closed)
	case oom.FoundReport:
	}
	if marks.Warned {
		return closed // tagged as a warning upstream: left as it is
	}
	if startupCue(texts) { // a plan line the agent's grouping joined to the status after it
		_, closed = s.Startup(in, texts, closed)
	}
	i := in(true)
	t.Report = found.Report
	st := assembly.Statement{Report: &t.Report, At: i.At, Text: texts[0], Sent: marks.RetrySent,
		Origin: i.Origin, Resource: i.Resource, Job: i.Job, RepeatJob: i.RepeatJob}
	step, closed := s.Assembler.Statement(i.Stream, st, i.Now, closed)
	t.Report.Retry = step.Verdict
	if marks.RetrySent {
		t.Report.Retry = "" // a verdict the record arrived with is kept
	}
	t.Outcome, t.FailureID, t.Opened = Statement, step.ID, step.Opened
	return closed
}

// StartupRecord reads a record whose texts passed the prefilter for a
// start-up line's cue alone (no OOM's, no host kill's) into stream's
// process, and reports whether it was one: then nothing else reads it.
// A lean path for the processor, which meets such records in every job's
// start-up; Candidate reads them the same way.
func (s *Stage) StartupRecord(stream uint64, at, now time.Time, texts []string, closed []assembly.Failure) (bool, []assembly.Failure) {
	// One line that reads as a start-up line is no OOM's: its formats are XLA's, TensorFlow's, nvidia-smi's
	// own; lines grouped into one record may hold both, and a plan line is also a warning.
	if len(texts) != 1 || strings.IndexByte(texts[0], '\n') >= 0 || oom.StartupPlan(texts[0]) {
		if s.mayBeOOM(texts) {
			return false, closed
		}
	}
	return s.startup(stream, at, now, texts, closed)
}

// mayBeOOM: a text passes the recogniser's own prefilter, not only the
// host kills' and start-up lines' cues the processor's pass adds.
func (s *Stage) mayBeOOM(texts []string) bool {
	for _, text := range texts {
		if s.recognizer.MayContain(text) {
			return true
		}
	}
	return false
}

// Evidence reads a record into its stream's open failure, if any.
func (s *Stage) Evidence(in func(statement bool) Input, text string, closed []assembly.Failure) []assembly.Failure {
	if len(text) > s.cfg.MaxScanSize || !s.Assembler.Open() {
		return closed
	}
	if i := in(false); s.Assembler.OpenIn(i.Resource) {
		closed = s.Assembler.Evidence(i.Stream, text, i.Now, closed)
	}
	return closed
}

// Startup reads the texts that hold a start-up or plan line into their
// stream's process (oom.Process), which the verdict reads when a failure
// closes, and reports whether it read any.
func (s *Stage) Startup(in func(statement bool) Input, texts []string, closed []assembly.Failure) (bool, []assembly.Failure) {
	i := in(false)
	return s.startup(i.Stream, i.At, i.Now, texts, closed)
}

func (s *Stage) startup(stream uint64, at, now time.Time, texts []string, closed []assembly.Failure) (bool, []assembly.Failure) {
	read := false
	for _, text := range texts {
		if len(text) <= s.cfg.MaxScanSize {
			var ok bool
			ok, closed = s.Assembler.Startup(stream, text, at, now, closed)
			read = read || ok
		}
	}
	return read, closed
}

// startupCue: a text may hold a start-up line (the prefilter passed it,
// so this runs on few records).
func startupCue(texts []string) bool {
	for _, text := range texts {
		if oom.StartupMayContain(text) {
			return true
		}
	}
	return false
}

// Tail reports whether a body the prefilter passed over may be a host kill
// line that holds no prefilter key (HostKillTails): Texts reads it.
func (s *Stage) Tail(body string) bool {
	return hostoom.MayEndWithTail(body) && s.tail(body) // inlined: most bodies end otherwise
}

//go:noinline // keeps Tail small enough to be inlined
func (s *Stage) tail(body string) bool {
	return s.cfg.HostKillTails && hostoom.EndsWithTail(body)
}

// Texts joins each line's host statement, dated by its header, else by the
// record, which carries the kill a line completed, else one that ended
// without its own line, else its first statement (srun's echo is no kill).
func (s *Stage) Texts(in Input, marks Marks, texts []string, t *Tags, closed []assembly.Failure) []assembly.Failure {
	t.Outcome = Untouched
	if marks.HostRead {
		return closed // read upstream: processing twice equals processing once
	}
	for _, text := range texts {
		if !hostoom.MayContain(text) {
			continue
		}
		n := 0
		for line := range strings.Lines(text) {
			l := logheader.SplitKernel(strings.TrimRight(line, "\r\n"))
			st, ok := hostoom.ParseLine(l.Text)
			if n++; !ok {
				continue
			}
			if in.Line > 0 {
				st.Ref = int64(in.Line + n - 1)
			}
			at := in.At
			if !l.At.IsZero() {
				at = l.At
			}
			closed = s.statement(in, at, st, t, closed)
		}
	}
	return closed
}

// Host joins st, read from a record dated in.At, into its stream's kills.
func (s *Stage) Host(in Input, marks Marks, st hostoom.KillReport, t *Tags, closed []assembly.Failure) []assembly.Failure {
	t.Outcome = Untouched
	if marks.HostRead {
		return closed
	}
	return s.statement(in, in.At, st, t, closed)
}

func (s *Stage) statement(in Input, at time.Time, st hostoom.KillReport, t *Tags, closed []assembly.Failure) []assembly.Failure {
	if t.Outcome == Untouched && !st.Kind.Lends() { // a SIGKILL's report is no statement of a kill alone
		t.Outcome, t.Host = HostStatement, st
	}
	if st.Kind.Echo() {
		return closed
	}
	j := assembly.HostJoin{Ended: t.Ended, Origin: in.Origin}
	closed = s.Assembler.HostStatement(in.Stream, at, st, in.Now, &j, closed)
	t.Ended = j.Ended
	switch {
	case j.Complete:
		t.Outcome, t.Kill = HostKill, j.Completed
	case t.Outcome != HostKill:
		for i := range j.Ended {
			if !j.Ended[i].Complete {
				t.Outcome, t.Kill = HostKill, j.Ended[i] // its own line never came
			}
		}
	}
	return closed
}

// Structured reads a journald MESSAGE (the kernel's lines only from the
// kernel's transport) or a k8sobjects Pod or Event for a host statement.
func Structured(message, transport string, object Object) (hostoom.KillReport, bool) {
	if message != "" {
		return hostoom.JournalStatement(message, transport)
	}
	if object == nil {
		return hostoom.KillReport{}, false
	}
	switch kind, _ := object.Str("kind"); kind {
	case "Pod":
		for _, st := range hostoom.PodKills(object.Raw()) {
			return st, true // one container per record: the first
		}
	case "Event":
		message, _ := object.Str("message")
		note, _ := object.Str("note")
		return hostoom.EventStatement(message, note)
	}
	return hostoom.KillReport{}, false
}

// Object is a structured object body (a Kubernetes object).
type Object interface {
	Str(key string) (string, bool) // a string field
	Raw() map[string]any
}
