// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

// The one-pass key scan in plain Go (SWAR, 16 bytes a step; BENCHMARKS.md, "The prefilter's keys"): single bytes
// that differ in one bit ('R', 'B': one comparison) and a four-byte word ("lloc"), its first and last bytes compared.
const (
	singleKeySlots = 2
	wordKeyLen     = 4
)

// A step reads blockLen bytes' hits from blockRead bytes (the word's last byte lies three bytes on). MinOnePassLen:
// shorter texts take the per-key passes.
const (
	blockLen      = 16
	blockRead     = blockLen + wordKeyLen - 1
	MinOnePassLen = blockRead
)

const (
	lowBytes = 0x0101010101010101
	highBits = 0x8080808080808080
	low7     = 0x7f7f7f7f7f7f7f7f
)

// keyWords are the keys as the scan compares them, each byte repeated over
// a word: a byte b is a single key when b|singleBit == singleValue.
type keyWords struct {
	singleBit, singleValue uint64
	wordFirst, wordLast    uint64
}

// NewKeyWords lays out keys: one or two single bytes that differ in at most one bit and at most one key of four bytes
// (a missing one repeats the first single key, which finds a subset of its hits); it panics when they do not fit.
func NewKeyWords(keys []string) keyWords {
	var singles, word []byte
	for _, k := range keys {
		switch {
		case len(k) == 1 && len(singles) < singleKeySlots:
			singles = append(singles, k[0])
		case len(k) == wordKeyLen && word == nil:
			word = []byte(k)
		default:
			panic("oom: the scan keys do not fit the one-pass scan: " + k)
		}
	}
	if len(singles) == 0 {
		panic("oom: the one-pass scan needs a single key")
	}
	var bit byte
	if len(singles) == 2 {
		bit = singles[0] ^ singles[1]
		if bit&(bit-1) != 0 {
			panic("oom: the one-pass scan's single keys must differ in one bit")
		}
	}
	if word == nil {
		word = []byte{singles[0], singles[0], singles[0], singles[0]}
	}
	return keyWords{
		singleBit: uint64(bit) * lowBytes, singleValue: uint64(singles[0]|bit) * lowBytes,
		wordFirst: uint64(word[0]) * lowBytes, wordLast: uint64(word[wordKeyLen-1]) * lowBytes,
	}
}

// mayHit reports whether the eight bytes x (with y, the eight bytes three further on) may hold a hit: any high bit of
// the result & highBits. It may say yes wrongly (a byte above a hit, a non-ASCII byte), never no wrongly; leaving
// those to the exact test (hits) saves three of ten operations per word on the hot loop.
func mayHit(x, y, bit, value, first, last uint64) uint64 {
	a, b := x|bit^value, (x^first)|(y^last)
	return (a - lowBytes) | (b - lowBytes) // & highBits: the caller's
}

// hits returns the high bit of each byte of x that is a hit, exactly: a
// byte v is non-zero when the high bit of ((v&0x7f)+0x7f)|v is set.
func (k *keyWords) hits(x, y uint64) uint64 {
	a, b := x|k.singleBit^k.singleValue, (x^k.wordFirst)|(y^k.wordLast)
	return ^((a&low7 + low7 | a) & (b&low7 + low7 | b)) & highBits
}

// load64 reads eight bytes little-endian (the compiler makes it one load).
func load64(w string) uint64 {
	_ = w[7]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// stepHits returns the hit masks (see hits) of the step at i: the eight bytes at i and the eight at i+8.
func (k *keyWords) stepHits(s string, i int) (h0, h1 uint64) {
	const y = wordKeyLen - 1
	w := s[i : i+blockRead]
	return k.hits(load64(w[0:8]), load64(w[y:y+8])), k.hits(load64(w[8:16]), load64(w[8+y:8+y+8]))
}

// firstStep returns where the first step of s that may hold a hit starts, len(s)-3 when only the last three bytes
// may, -1 for none (most texts). It needs MinOnePassLen <= len(s). Its loop reads two steps per branch and indexes s
// (resliced, s would cost a register and a key word's reload per pass). The bytes left after it are read as two whole
// steps that end with s, overlapping the loop's (which held no hit): no masks, no branch on the length.
func (k *keyWords) firstStep(s string) int {
	const y = wordKeyLen - 1
	bit, value, first, last := k.singleBit, k.singleValue, k.wordFirst, k.wordLast
	for i := 0; i <= len(s)-(blockRead+blockLen); i += 2 * blockLen {
		t := s[i : i+blockRead+blockLen]
		m0 := mayHit(load64(t[0:8]), load64(t[y:y+8]), bit, value, first, last) |
			mayHit(load64(t[8:16]), load64(t[8+y:8+y+8]), bit, value, first, last)
		m1 := mayHit(load64(t[16:24]), load64(t[16+y:16+y+8]), bit, value, first, last) |
			mayHit(load64(t[24:32]), load64(t[24+y:24+y+8]), bit, value, first, last)
		if (m0|m1)&highBits != 0 {
			if m0&highBits == 0 {
				return i + blockLen
			}
			return i
		}
	}
	at0, at1 := max(len(s)-blockRead-blockLen, 0), len(s)-blockRead
	w0, w1 := s[at0:at0+blockRead], s[at1:]
	m0 := mayHit(load64(w0[0:8]), load64(w0[y:y+8]), bit, value, first, last) |
		mayHit(load64(w0[8:16]), load64(w0[8+y:8+y+8]), bit, value, first, last)
	m1 := mayHit(load64(w1[0:8]), load64(w1[y:y+8]), bit, value, first, last) |
		mayHit(load64(w1[8:16]), load64(w1[8+y:8+y+8]), bit, value, first, last)
	// The single keys in the last three bytes: the top three of the last eight bytes.
	end := load64(s[len(s)-8:]) | bit ^ value
	switch {
	case m0&highBits != 0:
		return at0
	case m1&highBits != 0:
		return at1
	case (end-lowBytes)&^(1<<(8*(8-y))-1)&highBits != 0:
		return len(s) - y
	}
	return -1
}

// nextStep is firstStep on s from done on. The last, partial step (ending three bytes before the end) may start
// before done: its hits before done are to be left out (keepFrom).
func (k *keyWords) nextStep(s string, done int) int {
	switch end := len(s) - (wordKeyLen - 1); {
	case len(s)-done >= MinOnePassLen:
		if i := k.firstStep(s[done:]); i >= 0 {
			return done + i
		}
		return -1
	case done < end:
		return len(s) - blockRead
	default:
		return end
	}
}

// keepFrom returns the masks of a step's two words that keep its bytes from done on.
func keepFrom(done int) (keep0, keep1 uint64) {
	d := uint(done)
	return ^uint64(0) << min(8*d, 64), ^uint64(0) << (8*max(d, 8) - 64)
}
