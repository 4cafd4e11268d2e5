// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package tails is the host tail cues (hostoom.EndsWithTail): how a line
// ends, for the lines that hold none of the prefilter's scan keys.
package tails // import "github.com/xlaoom/xlaoomprocessor/hostoom/internal/tails"

import "strings"

// Tail cues: how a line ends, for lines that hold none of the prefilter's
// scan keys (the host-memory kill lines of Slurm, systemd, kubelet). MayEnd
// hashes the text's last four bytes into a table of the tails' (and looks
// its last byte up in a table of whitespace), with no branch but the one
// on the result; only a text that passes has its last eight bytes compared
// with the tails' (one branch on the last byte alone mispredicted on the
// lines that end with '.').
// In a tail, '#' stands for a run of one or more digits and dots, and
// every other byte for itself; trailing whitespace of the text is passed
// over.

// hashMul spreads a four-byte word over the table (Fibonacci hashing);
// hashBits is the table's size, 4,096 bits.
const (
	hashMul  = 0x9E3779B1
	hashBits = 12
)

// spaceBit is 1 for the whitespace that may follow a line.
var spaceBit = func() (t [256]uint64) {
	for _, b := range []byte(" \t\r\n") {
		t[b] = 1
	}
	return t
}()

// cue is a tail and the word of its last (up to eight) bytes after its
// last '#', which the text's last eight bytes must match.
type cue struct {
	word, mask uint64
	text       string
}

// Set is the prefilter's tails: ends holds the hashes of their last four
// bytes.
type Set struct {
	ends [1 << hashBits / 64]uint64
	cues []cue
}

// may reports whether text, of eight bytes or more, may end with a tail
// (then endsWithTail says); most texts stop here.
func (t *Set) may(text string) bool {
	e := text[len(text)-4:]
	h := (uint32(e[0]) | uint32(e[1])<<8 | uint32(e[2])<<16 | uint32(e[3])<<24) * hashMul >> (32 - hashBits)
	return (t.ends[h>>6]>>(h&63)|spaceBit[e[3]])&1 != 0
}

// Add adds tails; it panics on one shorter than eight bytes or that ends
// with '#'.
func (t *Set) Add(texts ...string) {
	for _, text := range texts {
		t.add(text)
	}
}

func (t *Set) add(text string) {
	if len(text) < 8 || strings.Contains(text[len(text)-4:], "#") {
		panic("hostoom: tail " + text + " must be eight bytes or more and end with four literal bytes")
	}
	lit := text
	if i := strings.LastIndexByte(text, '#'); i >= 0 {
		lit = text[i+1:]
	}
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
}

// endsWithTail reports whether text ends with one of the tails (after
// may). A text shorter than eight bytes holds none.
func (t *Set) endsWithTail(text string) bool {
	for len(text) > 8 && isLineSpace(text[len(text)-1]) {
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

// matchTail matches tail at the end of text.
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

func isLineSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
