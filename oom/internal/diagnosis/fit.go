// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// fitFraction is capacity / demand where the demand is the whole per-device
// one and the larger (0 otherwise): the factor by which it must shrink to
// fit, the inverse of the advice's "cut the batch by about X". Other failures
// (scoped VMEM, a request larger than what is free only) show no per-device
// demand to scale.
func fitFraction(r *grammar.Report) float64 {
	var x float64
	switch {
	case r.Code == grammar.CodeHbm:
		x = compileHbmRatio(AdviceCase{R: r})
	case requestOverDevice(retryCase{r: r}):
		x = grammar.Ratio(r.Requested, r.Capacity)
	case requestOverPool(retryCase{r: r}):
		x = grammar.Ratio(r.Requested, r.PoolLimit)
	}
	if x <= 1 {
		return 0
	}
	return 1 / x
}
