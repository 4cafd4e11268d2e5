// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package role

import (
	"sync"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/speaker"
)

// compiled is the family table with its patterns compiled, as the
// recogniser builds it.
var compiled = sync.OnceValue(func() *grammar.Compiled {
	c := &grammar.Compiled{}
	for _, group := range families.FailureGroups {
		for _, f := range group {
			f.Pattern = grammar.CompilePattern(f.ID, f.Anchor, f.Expr, f.Span)
			c.Families = append(c.Families, f)
		}
	}
	for _, group := range families.WarningGroups {
		for _, w := range group {
			w.Pattern = grammar.CompilePattern(w.ID, w.Anchor, w.Expr, w.Span)
			if w.Attempt {
				c.Attempts = append(c.Attempts, len(c.Warnings))
			}
			c.Warnings = append(c.Warnings, w)
		}
	}
	return c
})

// record is what the role decided on one text.
type record struct {
	flat       string
	st         speaker.Attribution
	candidates []Candidate
	attempts   AttemptSeries
	matched    int // failure family matches, whatever their role
}

// decide flattens text, records its speakers and asks the role of every
// failure family's match and every allocation attempt in it.
func decide(t *testing.T, text string) *record {
	t.Helper()
	rec := &record{}
	var info logtext.InfoLines
	marks := rec.st.Marks()
	rec.flat = logtext.WrapVocabulary(nil).FlattenLevels(text, &info, nil, &marks)
	c := compiled()
	for i := range c.Families {
		f := &c.Families[i]
		f.Each(rec.flat, func(m grammar.Match) {
			rec.matched++
			v := Of(Facts{
				Kind:    KindOf(f.Kind),
				Foreign: rec.st.Foreign(m.Start()),
				Guarded: details.Guarded(rec.flat, m.Start()),
				AtInfo:  info.Contains(m.Start()),
			})
			if v == Dropped {
				return
			}
			r := grammar.Report{Family: f.ID, Code: f.Code, Backend: f.Backend}
			grammar.ReadStandardGroups(&r, m)
			if f.Read == nil || f.Read(&r, m) {
				rec.candidates = append(rec.candidates, Candidate{F: f, Role: v, At: m.Start(), R: r, RequestedToken: grammar.RequestedToken(m)})
			}
		})
	}
	c.EachAttempt(rec.flat, func(at int) bool { return AttemptAt(&rec.st, at) == Attempt }, rec.attempts.Add)
	return rec
}

// failure is the report of the primary candidate merged with the others,
// as the recogniser merges them, and whether an attempt was its own request.
func (rec *record) failure(t *testing.T) (grammar.Report, bool) {
	t.Helper()
	p := Primary(rec.candidates)
	if p < 0 {
		t.Fatalf("no failure among %d candidates in %q", len(rec.candidates), rec.flat)
	}
	r := rec.candidates[p].R
	for i := range rec.candidates {
		if i != p {
			MergeFrom(&r, &rec.candidates[i].R)
			PreferExact(&r, rec.candidates[p].RequestedToken, &rec.candidates[i])
		}
	}
	own := ExactFromAttempt(&r, rec.candidates[p].RequestedToken, &rec.attempts)
	return r, own
}
