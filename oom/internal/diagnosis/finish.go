// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Finish derives what the matched fields imply: catalog names, backend,
// cause and remediation.
func Finish(r *grammar.Report, flat string, traits grammar.AdviceTraits) {
	e, _ := grammar.LookupCode(r.Code)
	r.Code, r.Name, r.Category, r.DocURL = e.Code, e.Name, e.Category, e.DocURL
	if e.Phase != "" {
		r.Phase = e.Phase
	}
	if r.Phase == "" {
		r.Phase = grammar.PhaseRuntime
	}
	if r.MemorySpace == "" && strings.Contains(r.Device, "_HBM") {
		r.MemorySpace = "hbm"
	}
	if r.Backend == "" {
		r.Backend = details.EvidenceBackend(flat)
	}
	if r.Cause == "" && r.Requested.Known && r.Free.Known { // the allocator's own summary may have told already
		if r.Free.Bytes >= r.Requested.Bytes {
			r.Cause = grammar.CauseFragmentation
		} else {
			r.Cause = grammar.CauseExhaustion
		}
	}
	r.Remediation, r.Action = adviseWithAction(r, flat, traits)
	r.Retry = RetryVerdict(r, 0)
	r.FitFraction = fitFraction(r)
}
