// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"

// Who printed each statement of a record (package speaker), in the
// coordinates of the flattened text: flatten strips the headers that name a
// native speaker, so it records, as it goes, where each statement starts
// and who printed it. A statement starts at a line whose log header states
// a level or at a line that starts an exception or a traceback
// (speaker.StartsStatement); the lines after it continue it.
//
// Only what changes a decision is kept: the statements of foreign programs
// (adjacent ones merged) and the exceptions (with their type). It holds a
// fixed number of spans (no allocation); statements past that are not
// recorded, so they count as unknown speakers: read by today's rules.
type statements struct {
	spans [16]statementSpan
	n     int
}

type statementSpan struct {
	from, to int    // to is -1 while the statement goes on
	header   string // its log header, for an undecided exception's second reading
	whole    bool   // who was read from the whole statement
	who      speaker.Speaker
}

// begin records that a statement starts at position at of the flattened
// text, with its header and first line.
func (s *statements) begin(at int, header, line string) {
	if s == nil {
		return
	}
	s.end(at)
	who := speaker.Of(header, line)
	if who.Owner != speaker.Foreign && who.Form != speaker.Exception {
		return
	}
	if k := s.n - 1; k >= 0 && s.spans[k].to == at && who.Form != speaker.Exception &&
		s.spans[k].who.Form != speaker.Exception && s.spans[k].who.Owner == speaker.Foreign {
		s.spans[k].to = -1 // one foreign program's lines, one after the other
		return
	}
	if s.n < len(s.spans) {
		s.spans[s.n] = statementSpan{from: at, to: -1, header: header, who: who}
		s.n++
	}
}

// end closes the statement still going on at position at.
func (s *statements) end(at int) {
	if s != nil && s.n > 0 && s.spans[s.n-1].to < 0 {
		s.spans[s.n-1].to = at
	}
}

// finish closes the last statement at the end of flat and reads each
// exception whose first line did not decide its owner again, whole
// (PaddlePaddle's "ResourceExhaustedError: " names its source path lines
// later).
func (s *statements) finish(flat string) {
	if s == nil {
		return
	}
	s.end(len(flat))
	for k := range s.n {
		sp := &s.spans[k]
		if !sp.whole && sp.who.Undecided() {
			sp.who = speaker.Of(sp.header, flat[sp.from:sp.to])
		}
	}
}

// single records a text that is one statement with no header.
func (s *statements) single(text string) {
	if s == nil {
		return
	}
	s.begin(0, "", text)
	s.end(len(text))
	if s.n > 0 {
		s.spans[0].whole = true
	}
}

// anyRaised reports whether a status XLA's stack raised is recorded.
func (s *statements) anyRaised() bool {
	if s == nil {
		return false
	}
	for k := range s.n {
		if s.spans[k].who.Raised() {
			return true
		}
	}
	return false
}

// at returns the recorded statement that holds position i, nil if none.
func (s *statements) at(i int) *statementSpan {
	if s == nil {
		return nil
	}
	for k := range s.n {
		if sp := &s.spans[k]; sp.from <= i && i < sp.to {
			return sp
		}
	}
	return nil
}

// foreign reports whether position i lies in a statement of a foreign
// program: no match there is XLA's.
func (s *statements) foreign(i int) bool {
	sp := s.at(i)
	return sp != nil && sp.who.Owner == speaker.Foreign
}

// raised reports whether position i lies in a status XLA's stack raised:
// a match there is the failure.
func (s *statements) raised(i int) bool {
	sp := s.at(i)
	return sp != nil && sp.who.Raised()
}

// exceptionType is the type of the exception at position i, else of the
// record's first exception that is not a foreign program's ("" if none).
func (s *statements) exceptionType(i int) string {
	if sp := s.at(i); sp != nil && sp.who.Form == speaker.Exception && sp.who.Owner != speaker.Foreign {
		return sp.who.Type()
	}
	if s == nil {
		return ""
	}
	for k := range s.n {
		if w := s.spans[k].who; w.Form == speaker.Exception && w.Owner != speaker.Foreign {
			return w.Type()
		}
	}
	return ""
}

// marks is what flattening tells s.
func (s *statements) marks() statementMarks {
	return statementMarks{starts: speaker.StartsStatement, begin: s.begin, single: s.single, finish: s.finish}
}
