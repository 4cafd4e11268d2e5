// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"math/bits"
	"strings"
)

// MayContain is Recognizer.MayContain.
//
// Design (measured in oom/bench_test.go, BENCHMARKS.md): every cue holds one of
// a few keys (scanKeys), bytes or a word that are rare in ordinary log
// lines; MayContain finds the keys' hits and confirms only those. One pass
// over the text, 16 bytes per step (keyscan.go, plain Go, the same on every
// architecture), first asks only whether any step may hold a hit: most texts
// end there; the others have their hits confirmed step by step from the
// first such step on (confirmFrom), the scan going on between them. Texts
// shorter than one step take one pass per key (mayContainPerKey). A hit is
// confirmed only when the eight bytes at it match one of two lead words of
// the cues that can continue with the byte after it (or a size may end at
// it; for the word, when the word before it ends as a cue's does), and only
// then character by character. The cues are given to buildPrefilter by the
// Recognizer (Recognizer.prefilterCues): the status words around any
// family's message, each family's own cues and the last-resort layer's; the
// prefilter knows only their text.
//
// It allocates nothing; its cost against one strings.Contains on the
// ordinary corpus is in BENCHMARKS.md (BenchmarkMayContainRatio); one
// strings.Contains per phrase costs ~25x.
//
// What it lets through that is not an OOM (gRPC RESOURCE_EXHAUSTED, Python
// RuntimeErrors, "failed to allocate" in other programs' lines) Recognize
// rejects.
func (p *Prefilter) MayContain(text string) bool {
	if len(text) >= MinOnePassLen {
		// Most texts: no step may hold a hit, and no hit is looked at.
		if from := p.keys.firstStep(text); from >= 0 {
			return p.confirmFrom(text, from)
		}
		return false
	}
	return p.MayContainPerKey(text)
}

// confirmFrom confirms the key hits of text from the step at from on (from
// firstStep), step by step, and then in its last three bytes (which the
// one-pass scan leaves out: only a single key can hit there). After a step
// it scans the rest with firstStep (nextStep), which also says when no key
// is left.
func (p *Prefilter) confirmFrom(text string, from int) bool {
	k := &p.keys
	end := len(text) - (wordKeyLen - 1)
	for i, done := from, from; i < end; {
		h0, h1 := k.stepHits(text, i)
		if i < done { // the last, partial step: its hits before done are confirmed
			keep0, keep1 := keepFrom(done - i)
			h0, h1 = h0&keep0, h1&keep1
		}
		for ; h0 != 0; h0 &= h0 - 1 {
			if p.hitIsCue(text, i+bits.TrailingZeros64(h0)/8) {
				return true
			}
		}
		for ; h1 != 0; h1 &= h1 - 1 {
			if p.hitIsCue(text, i+8+bits.TrailingZeros64(h1)/8) {
				return true
			}
		}
		done = i + blockLen
		if i = k.nextStep(text, done); i < 0 {
			return false // no key left
		}
	}
	for i := end; i < len(text); i++ {
		if p.singleKey[text[i]] && p.hitIsCue(text, i) {
			return true
		}
	}
	return false
}

// hitIsCue confirms the hit of a key at text[i]. Most hits stop at the
// lead words of the cues filed under the byte after the key (no cue
// continues with that byte: no lead matches) or, for a word key, at the
// word before it, and then at whether a size may end there.
func (p *Prefilter) hitIsCue(text string, i int) bool {
	scan := &p.Scans[p.scanOf[text[i]]]
	if scan.prevBefore >= 0 && !scan.wordWorthConfirming(text, i) {
		return false
	}
	t := text[i:]
	if len(t) < 8 {
		return scan.Confirm(text, i)
	}
	w := load64(t)
	if l := &scan.leads[t[1]]; (w&l[0].mask == l[0].word || w&l[1].mask == l[1].word) && scan.confirmCues(text, i, w) {
		return true
	}
	return scan.sizeVerbs != nil && mayEndSize(text, i) && sizeFollowsVerb(text, i, scan.sizeVerbs)
}

// MayContainPerKey is MayContain with one pass per key (strings.IndexByte
// for a byte, strings.Index for a word): for texts shorter than one step of
// the one-pass scan. It confirms the same hits, so it answers alike
// (checked by the differential tests on every text). On long texts the
// word's pass is the costly one (BENCHMARKS.md): its first byte is common
// in log text.
func (p *Prefilter) MayContainPerKey(text string) bool {
	for k := range p.Scans {
		scan := &p.Scans[k]
		for off := 0; ; {
			var j int
			if len(scan.keyText) == 1 {
				j = strings.IndexByte(text[off:], scan.Key)
			} else {
				j = strings.Index(text[off:], scan.keyText)
			}
			if j < 0 {
				break
			}
			if i := off + j; scan.worthConfirming(text, i) && scan.Confirm(text, i) {
				return true
			}
			off += j + 1
		}
	}
	return false
}

// worthConfirming: most hits stop here, at the byte after the key (no cue
// continues with it) or before it (no size ends with it), or for a word key
// at the word and the last byte of the word before it.
func (scan *PrefilterScan) worthConfirming(s string, i int) bool {
	if scan.prevBefore >= 0 {
		return scan.wordWorthConfirming(s, i)
	}
	return i+1 < len(s) && scan.cueSet[s[i+1]] != 0 || i > 0 && scan.endsSize[s[i-1]]
}

// wordWorthConfirming is worthConfirming for a scan whose cues all have a
// word before the key's run (see prefilterScan.prevBefore).
func (scan *PrefilterScan) wordWorthConfirming(s string, i int) bool {
	if !strings.HasPrefix(s[i:], scan.keyText) {
		return false // the one-pass scan compares only some of a word key's bytes
	}
	e := prevRunEnd(s, i-scan.prevBefore)
	return e > 0 && scan.prevLast[s[e-1]]
}

// Cue is a phrase whose presence lets a record through MayContain. In text,
// a space stands for a run of one or more whitespace bytes (a wrapped line
// still passes) and '#' for one decimal digit.
type Cue struct {
	Text string
	// near, when set, must follow the cue within cueNearSpan bytes.
	Near string
	// SizeAfter: text is a verb that a size with a byte unit follows
	// ("allocate 1.97GiB", "request for 32.00MiB (33554432B)"); the scan
	// finds the unit's 'B' and looks back for the verb.
	SizeAfter bool
}

// CueNearSpan bounds how far after a cue its near word is looked for.
const CueNearSpan = 256

// PrefilterScan is one key MayContain scans for and the cues it confirms.
type PrefilterScan struct {
	Key     byte   // the key's first byte
	keyText string // the whole key
	// cueSet[b] indexes cueSets: the cues whose key byte may be followed by
	// byte b (0: none). leads[b] are two words, one of which the eight bytes
	// at a hit must match for any of those cues to match: their heads when
	// they have at most two distinct ones, else the bytes all of them start
	// with; an unused slot holds a word no text matches.
	cueSet  [256]uint8
	cueSets []cueSet
	leads   [256][2]word
	// sizeVerbs are the sizeAfter cues' verbs (key 'B' only), and endsSize
	// the bytes that may stand before a size's 'B' (digits, the 'i' of GiB).
	sizeVerbs []string
	endsSize  [256]bool
	// prevBefore >= 0 when every cue of the scan is a word, whitespace and
	// a run holding the key prevBefore bytes in ("to allocate"): a hit is
	// then worth confirming only when the word before ends with a byte of
	// prevLast (the next byte tells nothing: the key is a word).
	prevBefore int
	prevLast   [256]bool
}

// Confirm checks the hit of scan.key at s[i] against the cues that may match
// there, then against the size verbs.
func (scan *PrefilterScan) Confirm(s string, i int) bool {
	if t := s[i:]; len(t) >= 8 {
		// The eight bytes at the hit against the leads of the cues filed
		// under the next byte: most hits stop here.
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		if l := &scan.leads[t[1]]; (w&l[0].mask == l[0].word || w&l[1].mask == l[1].word) && scan.confirmCues(s, i, w) {
			return true
		}
	} else if len(t) > 1 && scan.cueSet[t[1]] != 0 && scan.confirmCues(s, i, word8Tail(s, i)) {
		return true
	}
	return scan.sizeVerbs != nil && mayEndSize(s, i) && sizeFollowsVerb(s, i, scan.sizeVerbs)
}

// confirmCues checks the hit at s[i], whose eight bytes are w, against the
// cues filed under the byte after it.
func (scan *PrefilterScan) confirmCues(s string, i int, w uint64) bool {
	set := &scan.cueSets[scan.cueSet[s[i+1]]]
	// Cues that share the key's word ("allocating") differ in the word
	// before it: where that word ends is found once per hit.
	runStart, prevEnd := -1, -1
	for k, head := range set.heads {
		if w&head.mask != head.word {
			continue
		}
		c := &set.cues[k]
		if c.prevLen > 0 {
			if j := i - len(c.before); j != runStart {
				runStart, prevEnd = j, prevRunEnd(s, j)
			}
			if prevEnd < c.prevLen || word8(s, prevEnd-c.prevLen)&c.prevTail.mask != c.prevTail.word {
				continue
			}
		}
		if c.matchAt(s, i) {
			return true
		}
	}
	return false
}

// Prefilter is MayContain's tables: one scan per key, the key bytes the
// one-pass scan reads, and which scan each key's first byte belongs to.
type Prefilter struct {
	Scans     []PrefilterScan
	scanOf    [256]uint8 // the index in scans of the scan for a key's first byte
	singleKey [256]bool  // single-byte keys
	keys      keyWords
}
