// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// fitFraction is capacity / demand where a report shows both for the whole
// per-device demand and the demand is the larger (0 otherwise): the factor
// by which the demand must shrink to fit, the inverse of the "cut the batch
// by about X" the advice gives. Read from, in order:
//   - a compile-time HBM overflow (E1000): the device's capacity over what
//     the program uses (else requires), as compileHbmRatio;
//   - one request larger than the whole device: capacity over the request;
//   - one request larger than the allocator's pool: pool limit over the
//     request.
//
// Other failures (a kernel's scoped VMEM, a request larger than what is free
// only) show no per-device demand to scale, so none is given.
func fitFraction(r *grammar.Report) float64 {
	c := AdviceCase{R: r}
	var x float64
	switch {
	case r.Code == grammar.CodeHbm:
		x = compileHbmRatio(c)
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
