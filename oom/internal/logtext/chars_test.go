// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"testing"
	"unicode/utf8"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

func TestShorten(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"fusion.12", 160, "fusion.12"},
		{"abcdef", 6, "abcdef"},
		{"abcdef", 3, "abc..."},
		{"ab€", 4, "ab..."}, // € is 3 bytes: the cut does not split it
		{"ab€", 5, "ab€"},
		{"ab€d", 5, "ab€..."},
		{"€€", 1, "..."},
	} {
		got := Shorten(tc.in, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestNumbersAndNames: the figures and names the grammar cuts out of real
// lines.
func TestNumbersAndNames(t *testing.T) {
	if d, rest := LeadingDigits("2444 cuda_executor.cc:1365]"); d != "2444" || rest != " cuda_executor.cc:1365]" || Atoi(d) != 2444 {
		t.Errorf("LeadingDigits: %q %q", d, rest)
	}
	if n := Atoi("63763906560"); n != 63763906560 {
		t.Errorf("Atoi: %d", n)
	}
	if n := Atoi("59.38GiB"); n != 0 {
		t.Errorf("Atoi of a size: %d", n)
	}
	for in, want := range map[string]string{
		"'jit_activations'] [tf-allocator-allocation-error='']": "jit_activations",
		"''] [executable_name='jit_activations']":               "",
		"jit_activations'": "",
	} {
		if got := Quoted(in); got != want {
			t.Errorf("Quoted(%q) = %q, want %q", in, got, want)
		}
	}
	if i := SkipSpace("E1126 11:17:04.265280    1643 cuda", 21); i != 25 {
		t.Errorf("SkipSpace: %d", i)
	}
	for w, lv := range map[string]byte{"INFO": 'I', "WARNING": 'W', "WARN": 'W', "ERROR": 'E', "CRITICAL": 'F', "FATAL": 'F', "DEBUG": 'D', "Error": 0} {
		if logheader.LevelOfWord(w) != lv {
			t.Errorf("logheader.LevelOfWord(%q) = %q, want %q", w, logheader.LevelOfWord(w), lv)
		}
	}
	if LastNewline("a\nb\nc") != 3 || LastNewline("one line") != -1 {
		t.Errorf("LastNewline")
	}
}
