// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Attribution records who printed each statement of a record, in flattened coordinates, filled while flattening
// (it strips the headers that name a native speaker). Only foreign statements (adjacent ones merged) and
// exceptions are kept, in fixed spans without allocation; statements past them count as unknown.
type Attribution struct {
	spans     [16]statementSpan
	N         int
	traceback int // 1 + where the last statement start began a traceback, 0 for none
}

type statementSpan struct {
	from, to int    // to is -1 while the statement goes on
	header   string // its log header, for an undecided exception's second reading
	whole    bool   // who was read from the whole statement
	frames   int    // 1 + where the traceback this exception ends starts, 0 when none stands before it
	who      Speaker
}

// begin records a statement, with its header and first line, at position at of the flattened text.
func (s *Attribution) begin(at int, header, line string) {
	s.end(at)
	frames := s.traceback
	s.traceback = 0
	if strings.HasPrefix(line, logtext.TracebackHead) {
		s.traceback = at + 1
	}
	who := Of(header, line)
	if who.Owner != Foreign && who.Form != Exception {
		return
	}
	if k := s.N - 1; k >= 0 && s.spans[k].to == at && who.Form != Exception &&
		s.spans[k].who.Form != Exception && s.spans[k].who.Owner == Foreign {
		s.spans[k].to = -1 // one foreign program's lines, one after the other
		return
	}
	if s.N < len(s.spans) {
		s.spans[s.N] = statementSpan{from: at, to: -1, header: header, who: who}
		if who.Form == Exception {
			s.spans[s.N].frames = frames
		}
		s.N++
	}
}

func (s *Attribution) end(at int) {
	if s.N > 0 && s.spans[s.N-1].to < 0 {
		s.spans[s.N-1].to = at
	}
}

// finish closes the last statement and reads each undecided exception again, whole (PaddlePaddle's
// "ResourceExhaustedError: " names its path lines later), then by its traceback's innermost frame.
func (s *Attribution) finish(flat string) {
	s.end(len(flat))
	for k := range s.N {
		sp := &s.spans[k]
		if !sp.whole && sp.who.Undecided() {
			sp.who = Of(sp.header, flat[sp.from:sp.to])
		}
		if sp.who.Undecided() && sp.frames > 0 {
			sp.who.raisedIn(flat[sp.frames-1 : sp.from])
		}
	}
}

func (s *Attribution) single(text string) {
	s.begin(0, "", text)
	s.end(len(text))
	if s.N > 0 {
		s.spans[0].whole = true
	}
}

func (s *Attribution) at(i int) *statementSpan {
	if s == nil {
		return nil
	}
	for k := range s.N {
		if sp := &s.spans[k]; sp.from <= i && i < sp.to {
			return sp
		}
	}
	return nil
}

// Foreign reports whether position i lies in a foreign program's statement: no match there is XLA's.
func (s *Attribution) Foreign(i int) bool {
	sp := s.at(i)
	return sp != nil && sp.who.Owner == Foreign
}

// Raised reports whether position i lies in a status XLA's stack raised: a match there is the failure.
func (s *Attribution) Raised(i int) bool {
	sp := s.at(i)
	return sp != nil && sp.who.Raised()
}

// ExceptionType is the type of the exception at i, else of the record's first one not foreign's ("" if none).
func (s *Attribution) ExceptionType(i int) string {
	if sp := s.at(i); sp != nil && sp.who.Form == Exception && sp.who.Owner != Foreign {
		return sp.who.Type()
	}
	if s == nil {
		return ""
	}
	for k := range s.N {
		if w := s.spans[k].who; w.Form == Exception && w.Owner != Foreign {
			return w.Type()
		}
	}
	return ""
}

// Marks is what flattening tells s.
func (s *Attribution) Marks() logtext.StatementMarks {
	return logtext.StatementMarks{Starts: StartsStatement, Begin: s.begin, Single: s.single, Finish: s.finish}
}
