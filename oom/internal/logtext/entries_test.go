// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"fmt"
	"testing"
)

func TestEntries(t *testing.T) {
	var v WrapVocabulary
	for _, c := range []struct {
		name, text string
		want       []string // each entry's text and level
	}{
		{"one line", "Failed to allocate 1.00GiB", []string{"0 Failed to allocate 1.00GiB"}},
		{"enclosed header", `{"log":"E0528 07:02:44.350251 1 x.cc:2] out of memory"}`,
			[]string{`E {"log":"E0528 07:02:44.350251 1 x.cc:2] out of memory"}`}},
		{"lines before a header, quiet runs kept as one",
			"note\nI0528 07:02:44.1 1 a.cc:1] one\nW0528 07:02:44.1 1 a.cc:1] two\n  more\nE0528 07:02:44.1 1 a.cc:1] three\nI0528 07:02:44.1 1 a.cc:1] four",
			[]string{"0 note", "I one two more", "E three", "I four"}},
		{"a header with no level, a traceback, an exception line",
			"(pid=1) out of memory\nTraceback (most recent call last):\n  File \"a.py\", line 1, in f\njax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: x",
			[]string{"0 out of memory", `0 Traceback (most recent call last): File "a.py", line 1, in f`, "0 jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: x"}},
	} {
		var e Entries
		flat := v.FlattenLevels(c.text, nil, &e, nil)
		var got []string
		for k := range e.Len() {
			from, to, lv := e.At(k, flat)
			l := "0"
			if lv != 0 {
				l = string(lv)
			}
			got = append(got, l+" "+flat[from:to])
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: entries %q, want %q", c.name, got, c.want)
		}
	}
	var e Entries // more error entries than are kept inline
	text := ""
	for i := range 40 {
		text += fmt.Sprintf("E0528 07:02:44.1 1 a.cc:1] line %d\n", i)
	}
	flat := v.FlattenLevels(text, nil, &e, nil)
	if from, to, lv := e.At(39, flat); e.Len() != 40 || flat[from:to] != "line 39" || lv != 'E' {
		t.Errorf("%d entries, the last %q", e.Len(), flat[from:to])
	}
}
