// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/diagnosis"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// TestFitFraction: on every real message the fit fraction is capacity over
// demand where the report shows the whole per-device demand and it is the
// larger (below 1), 0 otherwise; on a compile-time HBM overflow it is the
// inverse of the factor the advice shrinks the footprint or batch by.
func TestFitFraction(t *testing.T) {
	corpus := adviceCorpus(t)
	known := 0
	for _, name := range slices.Sorted(maps.Keys(corpus)) {
		r, ok := Recognize(corpus[name])
		if !ok {
			continue
		}
		var want float64
		switch {
		case r.Code == grammar.CodeHbm && diagnosis.CompileHbmNeed(diagnosis.AdviceCase{R: &r}).Known && r.Capacity.Known:
			want = float64(r.Capacity.Bytes) / float64(diagnosis.CompileHbmNeed(diagnosis.AdviceCase{R: &r}).Bytes)
		case r.Code != grammar.CodeHbm && r.Requested.Known && r.Capacity.Known && r.Requested.Bytes > r.Capacity.Bytes:
			want = float64(r.Capacity.Bytes) / float64(r.Requested.Bytes)
		case r.Code != grammar.CodeHbm && r.Requested.Known && r.PoolLimit.Known && r.Requested.Bytes > r.PoolLimit.Bytes:
			want = float64(r.PoolLimit.Bytes) / float64(r.Requested.Bytes)
		}
		if want >= 1 {
			want = 0
		}
		if math.Abs(r.FitFraction-want) > 1e-12 {
			t.Errorf("%s: fit fraction %v, want %v", name, r.FitFraction, want)
		}
		if r.FitFraction <= 0 {
			continue
		}
		known++
		// Over by more than 15%, the advice names the factor (less: a percent).
		if r.Code == grammar.CodeHbm && 1/r.FitFraction > 1.15 && !strings.Contains(strings.Join(r.Remediation, " "), diagnosis.FmtRatio(1/r.FitFraction)) {
			t.Errorf("%s: the advice does not cut by %s: %q", name, diagnosis.FmtRatio(1/r.FitFraction), r.Remediation)
		}
	}
	if known < 20 {
		t.Errorf("only %d real messages with a fit fraction", known)
	}
	t.Logf("%d real messages with a fit fraction", known)
}
