// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// Flatten turns a log record into the single line the grammar reads: headers stripped, every whitespace run
// one space, so a wrapped or re-logged headline reads as one sentence; a hard wrap inside a word joins without.
func (v WrapVocabulary) Flatten(text string) string { return v.FlattenLevels(text, nil, nil, nil) }

// FlattenLevels is Flatten that also records the INFO spans, entry starts and statement starts it is given.
func (v WrapVocabulary) FlattenLevels(text string, info *InfoLines, entries *Entries, st *StatementMarks) string {
	if isFlat(text) {
		if st != nil {
			st.Single(text) // speaker hook: one statement, no header
		}
		if entries != nil {
			lv, _ := entryStart(text, 0, false)
			entries.begin(0, lv)
		}
		return text // the common one-line case: no copy
	}
	if strings.IndexByte(text, 0x1b) >= 0 {
		text = StripANSI(text)
	}
	if strings.IndexByte(text, '\\') >= 0 {
		text = UnescapeBreaks(text)
	}
	b := make([]byte, 0, len(text))
	space := false
	var level byte   // the level of the current log entry
	tight := false   // the previous line may be a terminal's wrap
	partial := false // the previous line is a container runtime's partial line
	for len(text) > 0 {
		var raw string
		raw, text, _ = strings.Cut(text, "\n")
		line, lv, stripped := logheader.StripLevel(raw)
		header := raw[:len(raw)-len(line)]
		if stripped {
			level = lv // a line without a header continues the entry above
		}
		if entries != nil {
			if elv, starts := entryStart(raw, lv, stripped); starts || entries.n == 0 {
				entries.begin(len(b), elv)
			}
		}
		line = stripQuoteMarkers(line)
		// A statement starts at the first line, at a header that states a level (a launcher's "(pid=1) " prefixes
		// every line of one message) or where st.Starts says; that continues no INFO line.
		if st != nil {
			begins := len(b) == 0 || stripped && lv != 0
			if !begins && st.Starts(line) {
				begins = true
				if !stripped {
					level = 0
				}
			}
			if begins {
				st.Begin(len(b), header, line)
			}
		}
		if len(line) > 0 && !IsSpace(line[0]) && (partial || tight && !stripped && v.joinsWrap(b, line)) {
			space = false
		}
		tight, partial = wrapTight(raw), criPartial(raw)
		start := len(b)
		for i := 0; i < len(line); {
			if IsSpace(line[i]) {
				space = true
				i++
				continue
			}
			j := i + 1
			for j < len(line) && !IsSpace(line[j]) {
				j++
			}
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			space = false
			b = append(b, line[i:j]...)
			i = j
		}
		if level == 'I' {
			info.add(start, len(b))
		}
		space = true
	}
	flat := string(b)
	if st != nil {
		st.Finish(flat) // speaker hook
	}
	return flat
}

// isFlat reports whether flatten would return text unchanged.
func isFlat(s string) bool {
	if s == "" {
		return true
	}
	if IsSpace(s[0]) || IsSpace(s[len(s)-1]) || logheader.Len(s) > 0 {
		return false
	}
	return strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\t') < 0 && strings.IndexByte(s, '\r') < 0 &&
		strings.IndexByte(s, '\v') < 0 && strings.IndexByte(s, '\f') < 0 && strings.IndexByte(s, 0x1b) < 0 &&
		strings.IndexByte(s, '\\') < 0 && !strings.Contains(s, "  ")
}

// StatementMarks is told where each statement starts while flattening; funcs, not an interface, so the record
// stays on its caller's stack.
type StatementMarks struct {
	Starts func(line string) bool // a line without a level starts a statement
	Begin  func(at int, header, line string)
	Single func(text string) // the text is one statement with no header
	Finish func(flat string)
}
