// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/generic"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// referenceMayContain is MayContain written the obvious way, to check the
// fast one against: the full cue list, and one plain loop per cue over every
// position of the text. It implements the cue semantics of logtext/prefilter.go:
//
//   - a space in a cue matches a run of one or more whitespace bytes, '#' one
//     decimal digit, any other byte itself;
//   - near must start within cueNearSpan bytes after the cue's match;
//   - a sizeAfter cue is a verb, a whitespace run (which may end in a line
//     break and the log header of a re-logged continuation line), then a size
//     whose unit ends in 'B' right after a digit ("512B") or after a digit
//     and one of KiB MiB GiB TiB PiB EiB; a size is digits, '.' and ','
//     ending in a digit, and the verb starts at most 256 bytes before it;
func referenceMayContain(text string) bool {
	for _, c := range referenceCues() {
		if c.SizeAfter {
			if referenceSizeAfter(text, c.Text) {
				return true
			}
			continue
		}
		for i := 0; i < len(text); i++ {
			end, ok := referenceMatch(text, i, c.Text)
			if ok && (c.Near == "" || strings.Contains(text[end:min(len(text), end+logtext.CueNearSpan)], c.Near)) {
				return true
			}
		}
	}
	return false
}

// referenceCues is the full cue list: the status cues, the catalog code
// names, every family's cues and the last-resort layer's. The names without
// an 'R' or a 'B' (the CompileTime* ones) are not cues: XLA prints them only
// after "RESOURCE_EXHAUSTED: Ennnn: ".
func referenceCues() []logtext.Cue {
	all := append([]logtext.Cue(nil), logtext.StatusCues...)
	for _, e := range grammar.Catalog {
		if strings.ContainsAny(e.Name, "RB") {
			all = append(all, logtext.Cue{Text: e.Name})
		}
	}
	z := defaultRecognizer
	for i := range z.Families {
		all = append(all, z.Families[i].Cues...)
	}
	for i := range z.Warnings {
		all = append(all, z.Warnings[i].Cues...)
	}
	return append(all, generic.GenericCues...)
}

// referenceMatch matches cue text at text[i:], returning where the match ends.
func referenceMatch(text string, i int, cueText string) (int, bool) {
	j := i
	for k := 0; k < len(cueText); k++ {
		switch c := cueText[k]; c {
		case ' ':
			if j >= len(text) || !logtext.IsSpace(text[j]) {
				return 0, false
			}
			for j < len(text) && logtext.IsSpace(text[j]) {
				j++
			}
		case '#':
			if j >= len(text) || text[j] < '0' || text[j] > '9' {
				return 0, false
			}
			j++
		default:
			if j >= len(text) || text[j] != c {
				return 0, false
			}
			j++
		}
	}
	return j, true
}

// referenceSizeAfter reports whether verb, whitespace and a size follow one
// another somewhere in text.
func referenceSizeAfter(text, verb string) bool {
	for p := 0; p+len(verb) <= len(text); p++ {
		if text[p:p+len(verb)] != verb {
			continue
		}
		ws := p + len(verb)
		q := ws
		for q < len(text) && logtext.IsSpace(text[q]) {
			q++
		}
		if q == ws {
			continue // the size must follow whitespace
		}
		// The size right after the whitespace, or after a log header that
		// follows the whitespace's last line break.
		starts := []int{q}
		if nl := strings.LastIndexByte(text[ws:q], '\n'); nl >= 0 {
			for s := q + 1; s < len(text) && s <= p+256; s++ {
				if !logheader.IsDigit(text[s]) && text[s] != '.' && text[s] != ',' {
					continue // a size starts here or nowhere
				}
				if logheader.Strip(text[ws+nl+1:s]) == "" {
					starts = append(starts, s)
				}
			}
		}
		for _, s := range starts {
			if s-p-len(verb) <= 256-len(verb) && referenceSizeAt(text, s) {
				return true
			}
		}
	}
	return false
}

// referenceSizeAt reports whether a size with a byte unit starts at text[s:].
func referenceSizeAt(text string, s int) bool {
	e := s
	for e < len(text) && (logheader.IsDigit(text[e]) || text[e] == '.' || text[e] == ',') {
		e++
	}
	if e == s || !logheader.IsDigit(text[e-1]) {
		return false
	}
	if e < len(text) && text[e] == 'B' {
		return true
	}
	return e+2 < len(text) && strings.IndexByte("KMGTPE", text[e]) >= 0 && text[e+1] == 'i' && text[e+2] == 'B'
}

// differentialTexts are every fixture, its generated variants and every seed.
func differentialTexts(tb testing.TB) []string {
	texts := fuzzSeeds(tb)
	for _, bs := range bases {
		texts = append(texts, bs.msg)
		forEachWrapping(bs.msg, bs.tpu, func(_, text, _ string) { texts = append(texts, text) })
	}
	for _, bs := range classBases {
		texts = append(texts, bs.msg)
		forEachWrapping(bs.msg, bs.tpu, func(_, text, _ string) { texts = append(texts, text) })
	}
	for i := range defaultRecognizer.Families {
		texts = append(texts, defaultRecognizer.Families[i].Example)
	}
	for i := range defaultRecognizer.Warnings {
		texts = append(texts, defaultRecognizer.Warnings[i].Example)
	}
	for _, c := range genericCases {
		texts = append(texts, c.text)
	}
	texts = append(texts, enclosureTexts()...)
	return texts
}

// checkPrefilterAgrees is the differential property: whatever Recognize or
// RecognizeWarning accepts passes MayContain, and MayContain answers as the
// reference does.
func checkPrefilterAgrees(t *testing.T, text string) {
	t.Helper()
	fast, ref := MayContain(text), referenceMayContain(text)
	if fast != ref {
		t.Errorf("MayContain = %v, reference = %v for %q", fast, ref, text)
	}
	if perKey := defaultRecognizer.prefilter.MayContainPerKey(text); perKey != fast {
		t.Errorf("MayContain = %v, one pass per key = %v for %q", fast, perKey, text)
	}
	if r, ok := Recognize(text); ok && !fast {
		t.Errorf("Recognize accepts (%s) what MayContain rejects: %q", r.Family, text)
	}
	if w, ok := RecognizeWarning(text); ok && !fast {
		t.Errorf("RecognizeWarning accepts (%s) what MayContain rejects: %q", w.Kind, text)
	}
}

func TestPrefilterDifferential(t *testing.T) {
	for _, text := range differentialTexts(t) {
		checkPrefilterAgrees(t, text)
	}
}

// TestReferenceCueSemantics pins the reference itself on the cue syntax.
func TestReferenceCueSemantics(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Ran \n out  of\tmemory", true},
		{"Ranout of memory", false},
		{"Requires 3.84T", true},
		{"Requires x", false},
		{"INTERNAL: 'memref.alloca' op", true},
		{"INTERNAL: nothing", false},
		{"trying to allocate 1.97GiB", true},
		{"trying to allocate 512B", true},
		{"device memory of 1.97 GiB", false},
		{"device memory of\nE0528 07:02:44.350251   27487 x.cc:1] 1.97GiB", true},
		{"device memory of" + strings.Repeat(" ", 300) + "1.97GiB", false},
		{"failed to allocate 1.97 GiB", true}, // "ailed to allocate" is a cue of its own
		{"trying to allocate 1.97 GiB", false},
		{"XLA backend allocating 16491332239 bytes", false},
	} {
		if got := referenceMayContain(c.text); got != c.want {
			t.Errorf("referenceMayContain(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
