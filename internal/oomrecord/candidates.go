// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomrecord

// Candidates are the texts of one record that passed the prefilter, ranked
// in source order: what Scan found, kept so that Read does not run the
// prefilter again. The first lives inline, so a Candidates on the stack
// costs no allocation and little to clear; a record with several passing
// texts (a body and an exception attribute) keeps the others in more.
type Candidates struct {
	first candidate
	more  []candidate
	n     int
}

// candidate is one text and its rank in source order.
type candidate struct {
	rank int
	text string
}

func (c *Candidates) reset() { c.n, c.more = 0, c.more[:0] }

func (c *Candidates) at(i int) *candidate {
	if i == 0 {
		return &c.first
	}
	return &c.more[i-1]
}

// add inserts text at its rank. A rank taken already keeps its first text,
// as Map.Get would for a repeated key.
func (c *Candidates) add(rank int, text string) {
	for i := range c.n {
		if c.at(i).rank == rank {
			return
		}
	}
	if c.n > 0 {
		c.more = append(c.more, candidate{})
	}
	i := c.n
	c.n++
	for ; i > 0 && c.at(i-1).rank > rank; i-- {
		*c.at(i) = *c.at(i - 1)
	}
	*c.at(i) = candidate{rank, text}
}

// First is the first text in source order ("" when none passed): the one a
// failure's evidence (its traceback) is read from.
func (c *Candidates) First() string {
	if c.n == 0 {
		return ""
	}
	return c.first.text
}
