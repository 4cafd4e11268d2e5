// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/diagnosis"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// incidentsDoc is where the verdict rules and the action kinds are
// documented for users.
var incidentsDoc = filepath.Join("..", "docs", "incidents.md")

// retryRulesMarkdown is the table of retryRules as docs/incidents.md shows it.
func retryRulesMarkdown() string {
	var b strings.Builder
	b.WriteString("| # | rule | when | verdict | evidence |\n|---|---|---|---|---|\n")
	for i, r := range diagnosis.RetryRules {
		b.WriteString("| " + strconv.Itoa(i+1) + " | " + r.Name + " | " + r.Condition + " | `" + r.Verdict + "` | " + r.Evidence + " |\n")
	}
	b.WriteString("| – | none of the above | – | `" + diagnosis.RetryUnknown + "` | the log does not show which: unknown rather than a guess, with the rule that would have decided and the fact it lacked |\n")
	return b.String()
}

// actionsMarkdown is the table of Actions as docs/incidents.md shows it.
func actionsMarkdown() string {
	var b strings.Builder
	b.WriteString("| `xla.oom.action` | the first step asks to |\n|---|---|\n")
	for _, a := range grammar.Actions {
		b.WriteString("| `" + a.Name + "` | " + a.Meaning + " |\n")
	}
	return b.String()
}

// TestRetryRulesDocumented: docs/incidents.md holds the verdict table and
// the action kinds exactly as the code has them, between their markers.
func TestRetryRulesDocumented(t *testing.T) {
	data, err := os.ReadFile(incidentsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, s := range []struct{ marker, want string }{
		{"retry-rules", retryRulesMarkdown()},
		{"action-kinds", actionsMarkdown()},
	} {
		begin, end := "<!-- "+s.marker+" -->\n", "<!-- /"+s.marker+" -->"
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		if i < 0 || j < i {
			t.Errorf("%s: no %q ... %q section", incidentsDoc, begin, end)
			continue
		}
		if got := doc[i+len(begin) : j]; got != s.want {
			t.Errorf("%s: the %s table is not the code's; put this between its markers:\n%s", incidentsDoc, s.marker, s.want)
		}
	}
}
