// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package details

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// findCodes relies on every catalog name ending in one of codeNameEnds.
func TestCatalogNameEnds(t *testing.T) {
	for _, e := range grammar.Catalog {
		ok := false
		for _, end := range codeNameEnds {
			ok = ok || strings.HasSuffix(e.Name+":", end)
		}
		if !ok {
			t.Errorf("%s: name %s ends in none of %q", e.Code, e.Name, codeNameEnds)
		}
	}
	if e, ok := grammar.LookupCode("E1002"); !ok || e.Code != "E1000" {
		t.Errorf("E1002 = %+v, %v", e, ok)
	}
	if _, ok := grammar.LookupCode("E1200"); ok {
		t.Error("E1200 is not an OOM code")
	}
}
