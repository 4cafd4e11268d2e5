// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomrecord

// Candidates are the texts of a record that passed the prefilter, in
// source order, so that Read does not run it again. The first lives
// inline: a Candidates on the stack costs no allocation.
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

// Texts appends the texts to dst, in source order.
func (c *Candidates) Texts(dst []string) []string {
	for i := range c.n {
		dst = append(dst, c.at(i).text)
	}
	return dst
}

func (c *Candidates) reset() { c.n, c.more = 0, c.more[:0] }

func (c *Candidates) at(i int) *candidate {
	if i == 0 {
		return &c.first
	}
	return &c.more[i-1]
}

// add inserts text at its rank; a rank taken keeps its first text.
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
