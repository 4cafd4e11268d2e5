// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package stage decides what one log record is and what is written on it,
// with no collector types: its callers are adapters.
package stage // import "github.com/xlaoom/xlaoomprocessor/internal/stage"

import (
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Config is the stage's settings.
type Config struct {
	Failure        failure.Config
	MemoryWarnings bool // tag memory-pressure warnings
	HostKillTails  bool // read string bodies that end like a host kill line
	MaxScanSize    int  // a longer text is not read for evidence
	LineKills      bool // host statements are read by line (Lines): a whole saved log
}

// Stage is safe for concurrent use; its state is its failure.Assembler.
type Stage struct {
	cfg        Config
	recognizer *oom.Recognizer
	Failures   *failure.Assembler
}

// New returns a stage with no open failure.
func New(cfg Config) *Stage {
	return &Stage{cfg: cfg, recognizer: oom.Default(), Failures: failure.New(cfg.Failure)}
}

// Input is a record's keys (package incident) and times.
type Input struct {
	Resource, Stream uint64
	Job              uint64     // 0: the resource names no job
	At               time.Time  // the record's time, else its arrival
	Now              time.Time  // its arrival
	Origin           func() any // failure.Statement.Origin
}

// Marks are what a record arrived with.
type Marks struct {
	Tagged    bool // xla.error.code, tagged upstream
	Warned    bool // xla.memory.warning
	RetrySent bool // xla.oom.retry: its sender's verdict, kept
	HostRead  bool // a host statement read upstream
}

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
	Host      hostoom.Statement
	Kill      hostoom.Kill
}

// OpenIn reports, without a lock, whether a stream of resource has an open failure.
func (s *Stage) OpenIn(resource uint64) bool {
	return s.Failures.Open() && s.Failures.OpenIn(resource)
}

// Candidate decides a record whose texts passed the prefilter; in gives its keys.
func (s *Stage) Candidate(texts []string, marks Marks, in func(statement bool) Input, t *Tags, closed []failure.Failure) []failure.Failure {
	t.Outcome = Untouched
	if marks.Tagged {
		return closed // tagged upstream: processing twice equals processing once
	}
	found := oomrecord.Read(s.recognizer, texts, s.cfg.MemoryWarnings)
	switch found.Found {
	case oom.FoundNothing:
		for _, text := range texts {
			if s.cfg.LineKills {
				break
			}
			if st, ok := hostoom.Parse(text); ok {
				if closed = s.Line(in(false), marks, st, t, closed); t.Outcome == HostKill {
					return closed
				}
				break
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
			closed = s.Failures.Attempted(i.Stream, found.Warning.Attempts, i.Now, closed)
		}
		return s.Evidence(in, texts[0], closed)
	case oom.FoundFailure:
	}
	if marks.Warned {
		return closed // tagged as a warning upstream: left as it is
	}
	i := in(true)
	t.Report = found.Report
	st := failure.Statement{Report: &t.Report, At: i.At, Text: texts[0], Sent: marks.RetrySent,
		Origin: i.Origin, Resource: i.Resource, Job: i.Job}
	step, closed := s.Failures.Statement(i.Stream, st, i.Now, closed)
	t.Report.Retry = step.Verdict
	if marks.RetrySent {
		t.Report.Retry = "" // a verdict the record arrived with is kept
	}
	t.Outcome, t.FailureID, t.Opened = Statement, step.ID, step.Opened
	return closed
}

// Evidence reads a record into its stream's open failure, if any.
func (s *Stage) Evidence(in func(statement bool) Input, text string, closed []failure.Failure) []failure.Failure {
	if len(text) > s.cfg.MaxScanSize || !s.Failures.Open() {
		return closed
	}
	if i := in(false); s.Failures.OpenIn(i.Resource) {
		closed = s.Failures.Evidence(i.Stream, text, i.Now, closed)
	}
	return closed
}

// Tail reads a body the prefilter passed over for a host kill line that
// holds no prefilter key (HostKillTails).
func (s *Stage) Tail(body string) (hostoom.Statement, bool) {
	if body == "" || !s.cfg.HostKillTails || !hostoom.EndsWithTail(body) {
		return hostoom.Statement{}, false
	}
	return hostoom.Parse(body)
}

// Line takes st read from a text: srun's echo of slurmstepd's line is a
// statement, never a second kill.
func (s *Stage) Line(in Input, marks Marks, st hostoom.Statement, t *Tags, closed []failure.Failure) []failure.Failure {
	if !st.Kind.Echo() {
		return s.Host(in, marks, st, t, closed)
	}
	t.Outcome = Untouched
	if !marks.HostRead {
		t.Outcome, t.Host = HostStatement, st
	}
	return closed
}

// Host joins st into its stream's kills: the record carries the kill its
// own line completes, else the statement.
func (s *Stage) Host(in Input, marks Marks, st hostoom.Statement, t *Tags, closed []failure.Failure) []failure.Failure {
	t.Outcome = Untouched
	if marks.HostRead {
		return closed // read upstream: processing twice equals processing once
	}
	var kills []hostoom.Kill
	kills, closed = s.Failures.HostStatement(in.Stream, in.At, st, in.Now, closed)
	t.Outcome, t.Host = HostStatement, st
	for i := range kills {
		if kills[i].Complete && kills[i].Last.Equal(in.At) && kills[i].Kind == st.Kind {
			t.Outcome, t.Kill = HostKill, kills[i]
		}
	}
	return closed
}

// Lines joins each line's host statement (LineKills), numbered from first,
// and returns kills with those that closed appended.
func (s *Stage) Lines(stream uint64, text string, first int, kills []hostoom.Kill) []hostoom.Kill {
	for i, line := range strings.Split(text, "\n") {
		l := hostoom.SplitHeader(strings.TrimRight(line, "\r"))
		if st, ok := hostoom.ParseLine(l.Text); ok && !st.Kind.Echo() {
			st.Ref = int64(first + i)
			closed, _ := s.Failures.HostStatement(stream, l.At, st, time.Time{}, nil)
			kills = append(kills, closed...)
		}
	}
	return kills
}

// Structured reads a journald MESSAGE (the kernel's lines only from the
// kernel's transport) or a k8sobjects Pod or Event for a host statement.
func Structured(message, transport string, object Object) (hostoom.Statement, bool) {
	if message != "" {
		return hostoom.JournalStatement(message, transport)
	}
	if object == nil {
		return hostoom.Statement{}, false
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
	return hostoom.Statement{}, false
}

// Object is a structured object body (a Kubernetes object).
type Object interface {
	Str(key string) (string, bool) // a string field
	Raw() map[string]any
}
