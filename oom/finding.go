// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
)

// Found says what Find found in a text.
type Found uint8

// The values of Found.
const (
	FoundNothing Found = iota // neither a failure nor (when asked for) a warning
	FoundFailure              // an XLA OOM failure, in Finding.Report
	FoundWarning              // no failure, but a memory-pressure warning, in Finding.Warning
)

// Finding is what one text holds: its failure, else its warning.
type Finding struct {
	Found   Found
	Report  grammar.Report  // when Found is FoundFailure
	Warning grammar.Warning // when Found is FoundWarning
}

// Find reads text once for both questions the collector asks of it: its
// failure, as Recognize reads it, and, when warnings is set and text holds
// no failure, its earliest memory-pressure warning, as RecognizeWarning
// reads it. Both read the same flattened text, so it is flattened once.
func (z *Recognizer) Find(text string, warnings bool) Finding {
	var info logtext.InfoLines
	var entries logtext.Entries
	var st speaker.Statements
	marks := st.Marks()
	flat := z.wrapWords.FlattenLevels(text, &info, &entries, &marks)
	if r, ok := z.recognizeFlat(flat, &info, &entries, &st); ok {
		return Finding{Found: FoundFailure, Report: r}
	}
	if warnings {
		if w, ok := z.recognizeWarningFlat(flat, &st); ok {
			return Finding{Found: FoundWarning, Warning: w}
		}
	}
	return Finding{}
}
