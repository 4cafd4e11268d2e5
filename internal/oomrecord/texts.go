// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomrecord

// Len is the number of texts that passed the prefilter.
func (c *Candidates) Len() int { return c.n }

// Text is the i-th of them, in source order.
func (c *Candidates) Text(i int) string { return c.at(i).text }
