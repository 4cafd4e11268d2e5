// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// MessageFormat describes one message family for docs/message-formats.md (make generate).
type MessageFormat struct {
	ID       string   // Report.Family
	Summary  string   // what the message says happened
	Kind     string   // "fatal" (a returned status), "log-only" (a log line) or "warning" (never an OOM)
	Code     string   // default catalog code; a code printed in the text wins ("" for a warning)
	Category string   // refines the code's catalog category with what failed ("" when the catalog's applies)
	Phase    string   // PhaseCompile or PhaseRuntime
	Backend  string   // the backend the message itself proves, "" if it does not
	Anchor   string   // the literal text the grammar is searched by
	Grammar  string   // the RE2 expression run on flattened text, each size group shown as <name:size>
	Yields   []string // the named groups: what the message gives
	Example  string   // a real message, verbatim from the tests' fixtures
	Message  string   // Example flattened, from where the family's message starts to the end
}

// MessageFormats returns every message family, failures in matching order, then the warnings.
func MessageFormats() []MessageFormat {
	z := defaultRecognizer
	out := make([]MessageFormat, 0, len(z.Families)+len(z.Warnings))
	for i := range z.Families {
		f := &z.Families[i]
		out = append(out, MessageFormat{
			ID: f.ID, Summary: f.Summary, Kind: f.Kind.String(), Code: f.Code, Category: f.Category, Phase: f.Phase, Backend: f.Backend,
			Anchor: f.Anchor, Grammar: readableGrammar(f.Expr), Yields: f.Yields(), Example: f.Example,
			Message: z.messageOf(&f.Pattern, f.Example),
		})
	}
	for i := range z.Warnings {
		w := &z.Warnings[i]
		out = append(out, MessageFormat{
			ID: w.ID, Summary: w.Summary, Kind: "warning", Phase: w.Phase, Backend: w.Backend,
			Anchor: w.Anchor, Grammar: readableGrammar(w.Expr), Yields: w.Yields(), Example: w.Example,
			Message: z.messageOf(&w.Pattern, w.Example),
		})
	}
	return out
}

// readableGrammar shows every size group of expr as <name:size>.
func readableGrammar(expr string) string {
	const open, size = `(?P<`, `>` + grammar.SizePattern + `)`
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

// SizeGroup is a standard size group of the family grammar: the Report field it fills and its meaning.
type SizeGroup struct{ Name, Meaning string }

// SizeGroups returns the standard size groups, for documentation.
func SizeGroups() []SizeGroup {
	out := make([]SizeGroup, 0, len(grammar.SizeMeanings))
	for _, m := range grammar.SizeMeanings {
		out = append(out, SizeGroup{m.Group, m.Meaning})
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
	out := make([]ErrorCode, 0, len(grammar.Catalog))
	for _, e := range grammar.Catalog {
		out = append(out, ErrorCode(e))
	}
	return out
}

// CodeOnlyFamily is Report.Family for a catalog OOM code printed without a readable message.
const CodeOnlyFamily = grammar.FamilyCodeOnly

// messageOf returns text flattened, from p's first match to the end ("" when p does not match).
func (z *Recognizer) messageOf(p *grammar.Pattern, text string) string {
	flat, found := z.wrapWords.Flatten(text), ""
	p.Each(flat, func(m grammar.Match) {
		if found == "" {
			found = m.Text[m.Start():]
		}
	})
	return found
}
