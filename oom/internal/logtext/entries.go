// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// Entries lists, in flattened coordinates, a record's log entries and the level each header states, for the
// last-resort layer. Adjacent entries at INFO, WARNING or DEBUG (never read there) are kept as one.
type Entries struct {
	inline [32]entry
	more   []entry
	n      int
}

type entry struct {
	from  int
	level byte
}

func (e *Entries) get(k int) entry {
	if k < len(e.inline) {
		return e.inline[k]
	}
	return e.more[k-len(e.inline)]
}

// begin records an entry at level at position at of the flattened text.
func (e *Entries) begin(at int, level byte) {
	if quiet := "IWD"; e.n > 0 && strings.IndexByte(quiet, level) >= 0 && strings.IndexByte(quiet, e.get(e.n-1).level) >= 0 {
		return // one run of entries the last-resort layer leaves alone
	}
	if e.n < len(e.inline) {
		e.inline[e.n] = entry{at, level}
	} else {
		if e.more == nil {
			e.more = make([]entry, 0, 4*len(e.inline)) // one allocation for most such records
		}
		e.more = append(e.more, entry{at, level})
	}
	e.n++
}

// Len is the number of entries recorded.
func (e *Entries) Len() int { return e.n }

// At returns entry k's span of flat, without the joining space, and its level (0 for none).
func (e *Entries) At(k int, flat string) (from, to int, level byte) {
	en := e.get(k)
	from, to = en.from, len(flat)
	if k+1 < e.n {
		to = e.get(k + 1).from
	}
	for from < to && flat[from] == ' ' {
		from++
	}
	return from, to, en.level
}

// entryStart reports whether a raw line starts an entry (a log header, also behind an enclosure, a traceback
// or an exception line) and the level it states.
func entryStart(raw string, level byte, stripped bool) (byte, bool) {
	if stripped {
		return level, true
	}
	if lv, ok := enclosedLevel(raw); ok {
		return lv, true
	}
	return 0, RaisedLine(raw) // what Python prints on its own
}

// enclosedLevel is the level of a log header behind an enclosure near a line's start ({"log":"E0528 ...).
func enclosedLevel(line string) (byte, bool) {
	if !strings.ContainsAny(line[:min(len(line), 66)], `"']`) {
		return 0, false // most lines: every opening below ends in one of these
	}
	for _, open := range [...]string{`:"`, `="`, `"`, `'`, "] "} {
		i := strings.Index(line[:min(len(line), 64+len(open))], open) // near the start
		if i < 0 {
			continue
		}
		if _, lv, ok := logheader.StripLevel(line[i+len(open):]); ok && lv != 0 {
			return lv, true
		}
	}
	return 0, false
}
