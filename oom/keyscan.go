// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

// The one-pass key scan: where the processor has it (AVX2 on amd64), every
// key of MayContain is found in one pass over the text, 32 bytes at a time,
// instead of one strings.IndexByte pass per key (BENCHMARKS.md, "The
// prefilter's keys"). Elsewhere MayContain makes the passes; both find the
// same hits in the same text, so they answer alike.

// The one-pass scan's keys: two single bytes, and one key of four bytes
// (a word whose first bytes alone are common, like the "lloc" of
// "allocate": "ll" is twice as frequent in log text). The scan tests the
// four-byte key's first and last bytes only (fewer loads than all four);
// MayContain's confirmation settles the rest.
const (
	singleKeySlots = 2
	wordKeyLen     = 4
)

// minOnePassLen: the one-pass scan reads 35 bytes at a time; shorter texts
// take the per-key passes, which are as cheap there.
const minOnePassLen = 35

// keyVectors are the keys as the one-pass scan reads them, each byte
// repeated over 32 bytes: the single keys, then the four-byte key's first
// and last bytes.
type keyVectors [singleKeySlots + 2][32]byte

// newKeyVectors lays out keys in the slots: one or two single bytes and at
// most one key of four bytes (a missing one repeats the first single key);
// it panics when they do not fit.
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
	for len(singles) < singleKeySlots {
		singles = append(singles, singles[0])
	}
	if word == nil {
		word = []byte{singles[0], singles[0], singles[0], singles[0]} // finds a subset of its hits
	}
	var v keyVectors
	for k, b := range append(singles, word[0], word[wordKeyLen-1]) {
		for i := range v[k] {
			v[k][i] = b
		}
	}
	return v
}
