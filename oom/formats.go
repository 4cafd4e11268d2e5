// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// MessageFormat describes one message family for documentation; make
// generate writes docs/message-formats.md and docs/recognition.md's family table from
// MessageFormats.
type MessageFormat struct {
	ID      string // Report.Family
	Summary string // what the message says happened
	Kind    string // "fatal" (a returned status), "log-only" (a log line) or "warning" (never an OOM)
	Code    string // default catalog code; a code printed in the text wins ("" for a warning)
	// Category refines the code's catalog category with what failed ("" when
	// the catalog's applies).
	Category string
	Phase    string // PhaseCompile or PhaseRuntime
	Backend  string // the backend the message itself proves, "" if it does not
	Anchor   string // the literal text the grammar is searched by
	// Grammar is the RE2 expression run on flattened text, with every size
	// group shown as <name:size>.
	Grammar string
	Yields  []string // the named groups: what the message gives
	Example string   // a real message, verbatim from the tests' fixtures
	// Message is Example flattened (headers stripped, whitespace folded),
	// from where the family's message starts to the end: whole, never cut
	// where the grammar's match ends.
	Message string
}

// MessageFormats returns every message family, failures in matching order,
// then the memory-pressure warnings.
func MessageFormats() []MessageFormat {
	z := defaultRecognizer
	out := make([]MessageFormat, 0, len(z.families)+len(z.warnings))
	for i := range z.families {
		f := &z.families[i]
		out = append(out, MessageFormat{
			ID: f.id, Summary: f.summary, Kind: f.kind.String(), Code: f.code, Category: f.category, Phase: f.phase, Backend: f.backend,
			Anchor: f.anchor, Grammar: readableGrammar(f.expr), Yields: f.yields(), Example: f.example,
			Message: z.messageOf(&f.pattern, f.example),
		})
	}
	for i := range z.warnings {
		w := &z.warnings[i]
		out = append(out, MessageFormat{
			ID: w.id, Summary: w.summary, Kind: kindWarning, Phase: w.phase, Backend: w.backend,
			Anchor: w.anchor, Grammar: readableGrammar(w.expr), Yields: w.yields(), Example: w.example,
			Message: z.messageOf(&w.pattern, w.example),
		})
	}
	return out
}

// kindWarning is MessageFormat.Kind of a memory-pressure warning.
const kindWarning = "warning"

// readableGrammar shows every size group of expr as <name:size>.
func readableGrammar(expr string) string {
	const open, size = `(?P<`, `>` + sizePattern + `)`
	var b strings.Builder
	for {
		i := strings.Index(expr, open)
		if i < 0 {
			break
		}
		end := strings.Index(expr[i:], ">")
		name := expr[i+len(open) : i+end]
		if !strings.HasPrefix(expr[i+end:], size) {
			b.WriteString(expr[:i+end+1])
			expr = expr[i+end+1:]
			continue
		}
		b.WriteString(expr[:i] + "<" + name + ":size>")
		expr = expr[i+end+len(size):]
	}
	b.WriteString(expr)
	return b.String()
}

// SizeGroup is a standard size group of the family grammar: the Report field
// it fills and what a family author must mean by it.
type SizeGroup struct{ Name, Meaning string }

// SizeGroups returns the standard size groups, for documentation.
func SizeGroups() []SizeGroup {
	out := make([]SizeGroup, 0, len(sizeMeanings))
	for _, m := range sizeMeanings {
		out = append(out, SizeGroup{m.group, m.meaning})
	}
	return out
}

// ErrorCode is one OpenXLA catalog code the package reports.
type ErrorCode struct {
	Code, Name, Category string
	Phase                string // "" when the code does not fix the phase (E0007)
	DocURL               string // "" when the code has no page
}

// ErrorCodes returns the catalog codes, for documentation.
func ErrorCodes() []ErrorCode {
	out := make([]ErrorCode, 0, len(catalog))
	for _, e := range catalog {
		out = append(out, ErrorCode(e))
	}
	return out
}

// CodeOnlyFamily is Report.Family for a catalog OOM code printed without a
// readable message.
const CodeOnlyFamily = familyCodeOnly

// messageOf returns text flattened, from the start of p's first match to the
// end, or "" when p does not match.
func (z *Recognizer) messageOf(p *pattern, text string) string {
	flat, found := z.wrapWords.flatten(text), ""
	p.each(flat, func(m match) {
		if found == "" {
			found = m.text[m.start():]
		}
	})
	return found
}
