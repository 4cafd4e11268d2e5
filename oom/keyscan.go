// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

// The one-pass key scan: where the processor has it (AVX2 on amd64), every
// key of MayContain is found in one pass over the text, 64 bytes at a time,
// and all the hits of a line come back from one call, instead of one pass
// per key (BENCHMARKS.md, "The prefilter's keys"). Elsewhere MayContain
// makes the passes (mayContainPerKey); both confirm the same hits, so they
// answer alike.

// The one-pass scan's keys: one or two single bytes that differ in one bit
// (like 'R' and 'B': one comparison finds both), and one key of four bytes
// (a word whose first bytes alone are common, like the "lloc" of
// "allocate": "ll" is twice as frequent in log text as "lloc"; measured in
// BENCHMARKS.md).
const (
	singleKeySlots = 2
	wordKeyLen     = 4
)

// minOnePassLen: the one-pass scan reads 35 bytes at a time; shorter texts
// take the per-key passes, which are as cheap there. maxOnePassLen: it
// writes hit indexes as int32.
const (
	minOnePassLen = 35
	maxOnePassLen = 1<<31 - 1
)

// maxKeyHits is how many hits one call of the scan hands back: ordinary
// lines have a few at most, so one call covers them.
const maxKeyHits = 8

// keyVectors are the keys as the one-pass scan reads them, each byte
// repeated over 32 bytes: the bit the single keys differ in and their value
// with that bit set (a byte b is a single key when b|bit == value), then the
// four-byte key's bytes.
type keyVectors [2 + wordKeyLen][32]byte

// newKeyVectors lays out keys in the slots: one or two single bytes that
// differ in at most one bit and at most one key of four bytes (a missing
// one repeats the first single key); it panics when they do not fit.
func newKeyVectors(keys []string) keyVectors {
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
		word = []byte{singles[0], singles[0], singles[0], singles[0]} // finds a subset of its hits
	}
	var v keyVectors
	for k, b := range append([]byte{bit, singles[0] | bit}, word...) {
		for i := range v[k] {
			v[k][i] = b
		}
	}
	return v
}
