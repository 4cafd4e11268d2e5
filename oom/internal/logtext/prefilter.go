// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"math/bits"
	"strings"
)

// MayContain is Recognizer.MayContain: one pass (keyscan.go) finds the steps that may hold a key (most texts have
// none), and only hits are confirmed (Confirm); a text shorter than a step takes a pass per key. No allocation.
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

// confirmFrom confirms the key hits of text step by step from the step at
// from, then in its last three bytes (where only a single key can hit).
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

// hitIsCue confirms the hit of a key at text[i].
func (p *Prefilter) hitIsCue(text string, i int) bool {
	return p.Scans[p.scanOf[text[i]]].Confirm(text, i)
}

// MayContainPerKey is MayContain with one pass per key, for texts shorter
// than one step; it answers alike (the differential tests check).
func (p *Prefilter) MayContainPerKey(text string) bool {
	for k := range p.Scans {
		scan := &p.Scans[k]
		for off := 0; ; {
			j := strings.Index(text[off:], scan.keyText) // IndexByte for a byte
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

// worthConfirming: most hits stop here, at the byte after the key (no cue continues with it) or before it (no size
// ends with it), without a call; Confirm gates a word key's.
func (scan *PrefilterScan) worthConfirming(s string, i int) bool {
	return scan.prevBefore >= 0 || i+1 < len(s) && scan.cueSet[s[i+1]] != 0 || i > 0 && scan.endsSize[s[i-1]]
}

// wordWorthConfirming gates a hit of a scan whose cues all have a word
// before the key's run (PrefilterScan.prevBefore).
func (scan *PrefilterScan) wordWorthConfirming(s string, i int) bool {
	if !strings.HasPrefix(s[i:], scan.keyText) {
		return false // the one-pass scan compares only some of a word key's bytes
	}
	e := prevRunEnd(s, i-scan.prevBefore)
	return e > 0 && scan.prevLast[s[e-1]]
}

// Cue is a phrase whose presence lets a record through MayContain. In Text,
// a space stands for a run of whitespace and '#' for one decimal digit.
type Cue struct {
	Text string
	Near string // when set, must follow the cue within CueNearSpan bytes
	// SizeAfter: Text is a verb that a size with a byte unit follows
	// ("allocate 1.97GiB"); the scan finds the 'B' and looks back for it.
	SizeAfter bool
}

// CueNearSpan bounds how far after a cue its near word is looked for.
const CueNearSpan = 256

// PrefilterScan is one key MayContain scans for and the cues it confirms.
type PrefilterScan struct {
	Key     byte   // the key's first byte
	keyText string // the whole key
	// cueSet[b] indexes cueSets: the cues whose key byte may be followed by byte b (0: none). leads[b] are two words
	// one of which the eight bytes at a hit must match for any of those cues to (cueSet.leads).
	cueSet  [256]uint8
	cueSets []cueSet
	leads   [256][2]word
	// sizeVerbs are the SizeAfter cues' verbs (key 'B' only), endsSize the bytes that may stand before a size's 'B'.
	sizeVerbs []string
	endsSize  [256]bool
	// prevBefore >= 0 when every cue of the scan is a word, whitespace and a run holding the key prevBefore bytes in
	// ("to allocate"): a hit is worth confirming only when the word before ends with a byte of prevLast.
	prevBefore int
	prevLast   [256]bool
}

// Confirm checks the hit of scan.key at s[i] against the cues that may match there, then against the size verbs. Most
// hits stop at the lead words of the cues filed under the byte after the key or, for a word key, at the word before
// it.
func (scan *PrefilterScan) Confirm(s string, i int) bool {
	if scan.prevBefore >= 0 && !scan.wordWorthConfirming(s, i) {
		return false
	}
	if t := s[i:]; len(t) >= 8 {
		w := load64(t)
		if l := &scan.leads[t[1]]; (w&l[0].mask == l[0].word || w&l[1].mask == l[1].word) && scan.confirmCues(s, i, w) {
			return true
		}
	} else if len(t) > 1 && scan.cueSet[t[1]] != 0 && scan.confirmCues(s, i, word8Tail(s, i)) {
		return true
	}
	return scan.sizeVerbs != nil && mayEndSize(s, i) && sizeFollowsVerb(s, i, scan.sizeVerbs)
}

// confirmCues checks the hit at s[i], whose eight bytes are w, against the cues filed under the byte after it.
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

// Prefilter is MayContain's tables: one scan per key.
type Prefilter struct {
	Scans     []PrefilterScan
	scanOf    [256]uint8 // the index in scans of the scan for a key's first byte
	singleKey [256]bool  // single-byte keys
	keys      keyWords
}
