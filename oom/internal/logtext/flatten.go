// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"strings"
)

// The flatten pipeline, in the order it runs: escapes.go undoes what a log
// pipeline or a paste adds to the text, headers.go strips each line's log
// headers (and reads their level for levels.go), wrap.go joins what a
// terminal's hard wrap split.

// Flatten turns a log record (one line or many) into the single-line form the
// grammar reads: every line loses its log-line prefixes (see stripHeaders),
// and every run of whitespace, newlines included, becomes one space. A
// hard-wrapped headline ("Used 21.95G of 15.48G hbm.\n Exceeded ...") and a
// headline whose continuation was re-logged with its own header therefore
// read as one sentence. A line break inside a word or a number of a
// terminal-wrapped paste, and a container runtime's partial line, join
// without a space (wrap.go).
func (v WrapVocabulary) Flatten(text string) string { return v.FlattenLevels(text, nil, nil, nil) }

// FlattenLevels is flatten that also records, in info (when not nil), the
// spans of the result that came from lines logged at INFO (levels.go), in
// entries (when not nil) where each log entry starts (entries.go), and in
// st (when not nil) who printed each statement (speaker/statements.go).
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
		raw := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			raw, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line, lv, stripped := StripHeadersLevel(raw)
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
		// Speaker hook: a statement starts at the record's first line, at a
		// header that states a level (a launcher's tag alone, "(pid=1) ",
		// "[1,0]<stderr>:", prefixes every line of one message) or at an
		// exception or traceback, which continues no INFO line above it.
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

// isFlat reports whether flatten would return text unchanged: one line, no
// header, no whitespace but single spaces between words.
func isFlat(s string) bool {
	if s == "" {
		return true
	}
	if IsSpace(s[0]) || IsSpace(s[len(s)-1]) || HeaderLen(s) > 0 {
		return false
	}
	return strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\t') < 0 && strings.IndexByte(s, '\r') < 0 &&
		strings.IndexByte(s, '\v') < 0 && strings.IndexByte(s, '\f') < 0 && strings.IndexByte(s, 0x1b) < 0 &&
		strings.IndexByte(s, '\\') < 0 && !strings.Contains(s, "  ")
}

// StatementMarks is told, while flattening, where each statement of the
// flattened text starts, with its log header and first line: the speaker
// layer's record of statements (speaker/statements.go) fills it in. Funcs, not an
// interface, so that the record stays on its caller's stack.
type StatementMarks struct {
	Starts func(line string) bool // a line without a level starts a statement
	Begin  func(at int, header, line string)
	Single func(text string) // the text is one statement with no header
	Finish func(flat string)
}
