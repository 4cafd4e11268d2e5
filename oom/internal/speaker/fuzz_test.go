// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import (
	"strings"
	"testing"
)

// FuzzOf: any header and statement give a speaker whose names are taken
// from them (no copy, nothing invented), and a statement start is read
// alike whether the line is given alone or with more after it.
func FuzzOf(f *testing.F) {
	for _, c := range cases {
		f.Add(c.header, c.statement)
	}
	f.Fuzz(func(t *testing.T, header, statement string) {
		s := Of(header, statement)
		both := header + "\x00" + statement
		for _, name := range []string{s.Module, s.Class, s.File, s.Logger} {
			if !strings.Contains(both, name) {
				t.Fatalf("%q is in neither %q nor %q", name, header, statement)
			}
		}
		if s.Raised() && (s.Form != Exception || s.Owner != XLA) {
			t.Fatalf("raised but %v %v", s.Form, s.Owner)
		}
		if (s.Type() != "") != (s.Form == Exception && s.Class != "") {
			t.Fatalf("type %q for form %v", s.Type(), s.Form)
		}
		if (s.Owner == Unknown) != (s.Program == "") {
			t.Fatalf("owner %v, program %q", s.Owner, s.Program)
		}
		StartsStatement(statement)
	})
}
