// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package tails matches how a line ends (hostoom.EndsWithTail).
package tails // import "github.com/xlaoom/xlaoomprocessor/hostoom/internal/tails"

import "strings"

// Last tests a text's last byte alone, inlined into the caller: most lines end otherwise, and pay no call. MayEnd
// hashes the text's last four bytes into a table of the tails' (or finds trailing whitespace) without a
// branch; only a hit compares the last eight bytes. In a tail '#' is a run of digits and dots.

// Fibonacci hashing into a table of 4,096 bits.
const (
	hashMul  = 0x9E3779B1
	hashBits = 12
)

var spaceBit = func() (t [256]uint64) { // 1 for the whitespace that may follow a line
	for _, b := range []byte(" \t\r\n") {
		t[b] = 1
	}
	return t
}()

// cue is a tail and the word its last eight bytes must match.
type cue struct {
	word, mask uint64
	text       string
}

// Set is a set of tails; ends hashes their last four bytes.
type Set struct {
	last [256]bool // the tails' last bytes and trailing whitespace
	ends [1 << hashBits / 64]uint64
	cues []cue
}

// may reports whether text (8 bytes or more) may end with a tail.
func (t *Set) may(text string) bool {
	e := text[len(text)-4:]
	h := (uint32(e[0]) | uint32(e[1])<<8 | uint32(e[2])<<16 | uint32(e[3])<<24) * hashMul >> (32 - hashBits)
	return (t.ends[h>>6]>>(h&63)|spaceBit[e[3]])&1 != 0
}

// Add adds tails; it panics on one under eight bytes or ending near '#'.
func (t *Set) Add(texts ...string) {
	for _, text := range texts {
		if len(text) < 8 || strings.Contains(text[len(text)-4:], "#") {
			panic("hostoom: tail " + text + " must be eight bytes or more and end with four literal bytes")
		}
		lit := text[strings.LastIndexByte(text, '#')+1:]
		lit = lit[max(0, len(lit)-8):]
		c := cue{text: text}
		for b := 0; b < len(lit); b++ {
			c.word |= uint64(lit[b]) << (8 * (8 - len(lit) + b))
			c.mask |= 0xff << (8 * (8 - len(lit) + b))
		}
		t.cues = append(t.cues, c)
		e := text[len(text)-4:]
		h := (uint32(e[0]) | uint32(e[1])<<8 | uint32(e[2])<<16 | uint32(e[3])<<24) * hashMul >> (32 - hashBits)
		t.ends[h>>6] |= 1 << (h & 63)
		t.last[text[len(text)-1]] = true
	}
	for _, b := range []byte(" \t\r\n") {
		t.last[b] = true
	}
}

// Last reports whether text may end with a tail by its last byte alone; MayEnd decides.
func (t *Set) Last(text string) bool {
	return len(text) >= 8 && t.last[text[len(text)-1]]
}

// LastBytes is the table Last reads, for a caller's own copy.
func (t *Set) LastBytes() [256]bool { return t.last }

func (t *Set) endsWithTail(text string) bool {
	for len(text) > 8 && spaceBit[text[len(text)-1]] != 0 {
		text = text[:len(text)-1]
	}
	if len(text) < 8 {
		return false
	}
	e := text[len(text)-8:]
	w := uint64(e[0]) | uint64(e[1])<<8 | uint64(e[2])<<16 | uint64(e[3])<<24 |
		uint64(e[4])<<32 | uint64(e[5])<<40 | uint64(e[6])<<48 | uint64(e[7])<<56
	for i := range t.cues {
		if c := &t.cues[i]; w&c.mask == c.word && matchTail(text, c.text) {
			return true
		}
	}
	return false
}

// MayEnd is the whole test.
func (t *Set) MayEnd(text string) bool {
	return len(text) >= 8 && t.may(text) && t.endsWithTail(text)
}

func matchTail(text, tail string) bool {
	i := len(text)
	for j := len(tail) - 1; j >= 0; j-- {
		if c := tail[j]; c == '#' {
			k := i
			for k > 0 && (text[k-1] >= '0' && text[k-1] <= '9' || text[k-1] == '.') {
				k--
			}
			if k == i {
				return false
			}
			i = k
		} else {
			if i == 0 || text[i-1] != c {
				return false
			}
			i--
		}
	}
	return true
}
