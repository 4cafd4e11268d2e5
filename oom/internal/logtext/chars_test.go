// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"testing"
	"unicode/utf8"
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
