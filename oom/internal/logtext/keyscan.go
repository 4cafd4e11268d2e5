// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"math/bits"
)

// The one-pass key scan, in plain Go and the same on every architecture:
// every key of MayContain is found in one pass over the text, 16 bytes per
// step (two steps per branch while the text lasts), eight at a time in a
// 64-bit word (SWAR). A first pass only asks whether any step may hold a
// hit (firstStep: most texts end there); the hits of a line then come back
// from one call, instead of one strings.IndexByte or strings.Index pass per
// key (BENCHMARKS.md, "The prefilter's keys").

// The keys it reads: one or two single bytes that differ in one bit (like
// 'R' and 'B': one comparison finds both), and one key of four bytes (a word
// whose first bytes alone are common, like the "lloc" of "allocate"), of
// which it compares the first and last bytes (measured in BENCHMARKS.md).
const (
	singleKeySlots = 2
	wordKeyLen     = 4
)

// A step reads blockLen bytes' hits from blockRead bytes (the word's last
// byte lies three bytes on). minOnePassLen: shorter texts take the per-key
// passes. maxOnePassLen: hit indexes are int32.
const (
	blockLen      = 16
	blockRead     = blockLen + wordKeyLen - 1
	MinOnePassLen = blockRead
	maxOnePassLen = 1<<31 - 1
)

// MaxKeyHits is how many hits one call of the scan hands back: ordinary
// lines have a few at most, so one call covers them.
const MaxKeyHits = 8

// lowBytes and highBits repeat 0x01 and 0x80 over a word; low7 is 0x7f.
const (
	lowBytes = 0x0101010101010101
	highBits = 0x8080808080808080
	low7     = 0x7f7f7f7f7f7f7f7f
)

// keyWords are the keys as the scan compares them, each byte repeated over
// a word: the bit the single keys differ in and their value with it set (a
// byte b is a single key when b|bit == value), then the four-byte key's
// first and last bytes.
type keyWords struct {
	singleBit, singleValue uint64
	wordFirst, wordLast    uint64
}

// NewKeyWords lays out keys: one or two single bytes that differ in at
// most one bit and at most one key of four bytes (a missing one repeats
// the first single key, which finds a subset of its hits); it panics when
// they do not fit.
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

// mayHit reports whether the eight bytes x (with y, the eight bytes three
// further on) may hold a hit: any high bit of the result, masked with
// highBits. It may say yes wrongly (a byte above a hit, or a byte of x or
// y that is not ASCII: then a or b has a byte above 0x80), never no
// wrongly: a byte of a or b is zero where a key hits, and then the high bit
// of a-1 or b-1 is set. Leaving the non-ASCII bytes to the exact test
// (hits) saves three of the ten operations per word on the hot loop.
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

// KeyHits writes to out the indexes of the key hits in s[from:len(s)-3], in
// order, and returns how many; when out fills up, next is where to go on.
// It needs minOnePassLen <= len(s) <= maxOnePassLen. The last, partial step
// reads the block that ends three bytes before the end, without the hits
// before from.
func KeyHits(s string, from int, k *keyWords, out *[MaxKeyHits]int32) (n, next int) {
	end := len(s) - (wordKeyLen - 1)
	i := from
	for {
		step, found := nextStep(s[i:], k.singleBit, k.singleValue, k.wordFirst, k.wordLast)
		i += step
		if !found {
			break
		}
		w := s[i : i+blockRead]
		if n, next = appendHits(out, n, i, k.hits(load64(w[0:8]), load64(w[wordKeyLen-1:wordKeyLen+7]))); next >= 0 {
			return n, next
		}
		if n, next = appendHits(out, n, i+8, k.hits(load64(w[8:16]), load64(w[wordKeyLen+7:wordKeyLen+15]))); next >= 0 {
			return n, next
		}
		i += blockLen
	}
	if i < end {
		at := len(s) - blockRead
		x0, y0, x1, y1 := lastStep(s)
		keep0, keep1 := keepFrom(i - at)
		may := mayHit(x0, y0, k.singleBit, k.singleValue, k.wordFirst, k.wordLast)&keep0 |
			mayHit(x1, y1, k.singleBit, k.singleValue, k.wordFirst, k.wordLast)&keep1
		if may&highBits == 0 {
			return n, end // most texts: no hit in the last step
		}
		if n, next = appendHits(out, n, at, k.hits(x0, y0)&keep0); next >= 0 {
			return n, next
		}
		if n, next = appendHits(out, n, at+8, k.hits(x1, y1)&keep1); next >= 0 {
			return n, next
		}
	}
	return n, end
}

// firstStep returns where the first step of s that may hold a hit starts,
// -1 for none (most texts): the scan's loop, its last step, and a single
// key in the last three bytes, without the exact hits. It needs
// minOnePassLen <= len(s).
func (k *keyWords) firstStep(s string) int {
	i, found := nextStep(s, k.singleBit, k.singleValue, k.wordFirst, k.wordLast)
	if found {
		return i
	}
	// The last step, then the single keys in the last three bytes, which no
	// step reads: the top three of the last eight bytes.
	// (lastStep written out: it is not inlined, and this runs on every text.)
	const y = wordKeyLen - 1
	w := s[len(s)-blockRead:]
	keep0, keep1 := keepFrom(i - (len(s) - blockRead))
	may := mayHit(load64(w[0:8]), load64(w[y:y+8]), k.singleBit, k.singleValue, k.wordFirst, k.wordLast)&keep0 |
		mayHit(load64(w[8:16]), load64(w[8+y:8+y+8]), k.singleBit, k.singleValue, k.wordFirst, k.wordLast)&keep1
	last := load64(s[len(s)-8:]) | k.singleBit ^ k.singleValue
	if (may|(last-lowBytes)&^(1<<(8*(8-y))-1))&highBits == 0 {
		return -1
	}
	return i
}

// lastStep reads the last, partial step of s: the block that ends three
// bytes before the end.
func lastStep(s string) (x0, y0, x1, y1 uint64) {
	const y = wordKeyLen - 1
	w := s[len(s)-blockRead:]
	return load64(w[0:8]), load64(w[y : y+8]), load64(w[8:16]), load64(w[8+y : 8+y+8])
}

// keepFrom returns the masks of the last step's two words that keep its
// bytes from done on (the first done bytes were read already): none of them
// when done >= blockLen.
func keepFrom(done int) (keep0, keep1 uint64) {
	d := uint(done)
	return ^uint64(0) << min(8*d, 64), ^uint64(0) << (8*max(d, 8) - 64)
}

// nextStep returns the offset of the first step of t that may hold a hit
// (found), or where the full steps of t end. It is the scan's hot loop, kept
// small so that the compiler holds everything in registers; it reads two
// steps at a time while it can (one branch per 32 bytes).
func nextStep(t string, bit, value, first, last uint64) (offset int, found bool) {
	const y = wordKeyLen - 1 // where the eight bytes of a word's last key byte start
	n := len(t)
	for ; len(t) >= blockRead+blockLen; t = t[2*blockLen:] {
		m0 := mayHit(load64(t[0:8]), load64(t[y:y+8]), bit, value, first, last) |
			mayHit(load64(t[8:16]), load64(t[8+y:8+y+8]), bit, value, first, last)
		m1 := mayHit(load64(t[16:24]), load64(t[16+y:16+y+8]), bit, value, first, last) |
			mayHit(load64(t[24:32]), load64(t[24+y:24+y+8]), bit, value, first, last)
		if (m0|m1)&highBits != 0 {
			if m0&highBits == 0 {
				return n - len(t) + blockLen, true
			}
			return n - len(t), true
		}
	}
	for ; len(t) >= blockRead; t = t[blockLen:] {
		if (mayHit(load64(t[0:8]), load64(t[y:y+8]), bit, value, first, last)|
			mayHit(load64(t[8:16]), load64(t[8+y:8+y+8]), bit, value, first, last))&highBits != 0 {
			return n - len(t), true
		}
	}
	return n - len(t), false
}

// appendHits appends the bytes of m, a hit mask of the eight bytes at
// base, to out; next >= 0 when out fills up: where to go on.
func appendHits(out *[MaxKeyHits]int32, n, base int, m uint64) (int, int) {
	for ; m != 0; m &= m - 1 {
		i := base + bits.TrailingZeros64(m)/8
		out[n] = int32(i)
		if n++; n == MaxKeyHits {
			return n, i + 1
		}
	}
	return n, -1
}
