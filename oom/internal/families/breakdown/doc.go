// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package breakdown reads the memory breakdowns printed with a failure: TPU
// totals and largest allocations, GPU BufferAssignment stats and peak
// buffers, XRT program-load figures (the types are grammar.Breakdown and
// grammar.Allocation).
package breakdown
