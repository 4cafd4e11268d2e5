// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomrecord

// Candidates are the texts of one record that passed the prefilter, ranked
// in source order: what Scan found, kept so that Read does not run the
// prefilter again. The first few live inline, so a Candidates on the stack
// costs no allocation.
type Candidates struct {
	inline [4]candidate
	more   []candidate // past the inline ones: a map body with many keys
	n      int
}

// candidate is one text and its rank in source order.
type candidate struct {
	rank int
	text string
}

func (c *Candidates) at(i int) *candidate {
	if i < len(c.inline) {
		return &c.inline[i]
	}
	return &c.more[i-len(c.inline)]
}

// add inserts text at its rank. A rank taken already keeps its first text,
// as Map.Get would for a repeated key.
func (c *Candidates) add(rank int, text string) {
	for i := range c.n {
		if c.at(i).rank == rank {
			return
		}
	}
	if c.n >= len(c.inline) {
		c.more = append(c.more, candidate{})
	}
	i := c.n
	c.n++
	for ; i > 0 && c.at(i-1).rank > rank; i-- {
		*c.at(i) = *c.at(i - 1)
	}
	*c.at(i) = candidate{rank, text}
}
