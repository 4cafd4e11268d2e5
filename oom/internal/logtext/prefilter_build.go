// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"slices"
	"strconv"
	"strings"
)

// gateOnPrevWord sets prevBefore and prevLast when every cue of the scan
// has a word before its key's run and the runs hold the key alike.
func (scan *PrefilterScan) gateOnPrevWord() {
	scan.prevBefore = -1
	if len(scan.cueSets) == 0 || scan.sizeVerbs != nil {
		return
	}
	before := -1
	for _, set := range scan.cueSets {
		for _, c := range set.cues {
			if c.prevLen == 0 || before >= 0 && len(c.before) != before {
				return
			}
			before = len(c.before)
		}
	}
	for _, set := range scan.cueSets {
		for _, c := range set.cues {
			scan.prevLast[byte(c.prevTail.word>>(8*(c.prevLen-1)))] = true
		}
	}
	scan.prevBefore = before
}

// cueSet is the cues that may match after one byte. heads holds up to the first eight bytes of each cue's after run,
// and common the bytes all of them share: one or two word comparisons reject nearly every hit.
type cueSet struct {
	common, commonMask uint64
	heads              []word
	cues               []keyedCue
}

// impossible is a word no text matches: the key byte is never NUL.
var impossible = word{word: 0, mask: 0xff}

// leads returns two words one of which a hit must match for any cue of the set to match (see prefilterScan.leads).
func (set *cueSet) leads() [2]word {
	var distinct []word
	for _, h := range set.heads {
		if !slices.Contains(distinct, h) {
			distinct = append(distinct, h)
		}
	}
	if len(distinct) > 2 {
		return [2]word{{set.common, set.commonMask}, impossible}
	}
	l := [2]word{impossible, impossible}
	copy(l[:], distinct)
	return l
}

// word is up to eight bytes of text, little-endian, and the mask of the bytes it holds.
type word struct{ word, mask uint64 }

func wordOf(s string) word {
	var w word
	for b := 0; b < 8 && b < len(s); b++ {
		w.word |= uint64(s[b]) << (8 * b)
		w.mask |= 0xff << (8 * b)
	}
	return w
}

func (set *cueSet) add(c keyedCue) {
	h := wordOf(c.after)
	if len(set.cues) == 0 {
		set.common, set.commonMask = h.word, h.mask
	} else {
		// Keep the leading bytes every head agrees on.
		m := set.commonMask & h.mask
		for b := 0; b < 8; b++ {
			if m>>(8*b)&0xff == 0 || (set.common^h.word)>>(8*b)&0xff != 0 {
				m &= 1<<(8*b) - 1
				break
			}
		}
		set.commonMask, set.common = m, set.common&m
	}
	set.heads, set.cues = append(set.heads, h), append(set.cues, c)
}

// keyedCue is a cue and the index of its key byte in its text. before and after are the literal runs (no space, no
// '#') that end just before and start at the key; a plain cue (no space or '#' at all) is settled by them.
type keyedCue struct {
	Cue
	at            int
	before, after string
	plain         bool
	beforeWord    word
	// wordsCoverRuns: both runs fit in eight bytes, so the word comparisons settle them without a string comparison.
	wordsCoverRuns bool
	// prevTail and nextHead hold up to eight bytes of the literal runs a space separates from before and after
	// ("memory" in "memory allocating", "of" in "allocation of"), zero for none: they reject most hits that share the
	// key's word before matchCue runs.
	prevTail, nextHead word
	prevLen            int // the bytes prevTail holds
}

func newKeyedCue(c Cue, at int) keyedCue {
	start := strings.LastIndexAny(c.Text[:at], " #") + 1
	end := len(c.Text)
	if k := strings.IndexAny(c.Text[at:], " #"); k >= 0 {
		end = at + k
	}
	k := keyedCue{Cue: c, at: at, before: c.Text[start:at], after: c.Text[at:end], plain: start == 0 && end == len(c.Text)}
	k.beforeWord = wordOf(k.before)
	k.wordsCoverRuns = len(k.before) <= 8 && len(k.after) <= 8
	if start >= 2 && c.Text[start-1] == ' ' && c.Text[start-2] != ' ' && c.Text[start-2] != '#' {
		prev := c.Text[strings.LastIndexAny(c.Text[:start-1], " #")+1 : start-1]
		k.prevTail, k.prevLen = wordOf(prev[max(0, len(prev)-8):]), min(len(prev), 8)
	}
	if end+1 < len(c.Text) && c.Text[end] == ' ' && c.Text[end+1] != ' ' && c.Text[end+1] != '#' {
		next := c.Text[end+1:]
		if n := strings.IndexAny(next, " #"); n >= 0 {
			next = next[:n]
		}
		k.nextHead = wordOf(next)
	}
	return k
}

// ScanKeys are the keys MayContain scans for, one byte or a pair of bytes, chosen from measured byte frequencies of
// log text (BENCHMARKS.md): rare in ordinary lines, and one of them in every cue. A cue takes the first key of this
// list that its text holds. Each key's first byte is distinct.
var ScanKeys = []string{"R", "B", "lloc"}

// BuildPrefilter turns all the recogniser's cues into the scan tables. It panics on a cue that holds no key.
func BuildPrefilter(all []Cue) Prefilter {
	var p Prefilter
	for _, k := range ScanKeys {
		if len(k) == 1 {
			p.singleKey[k[0]] = true
		}
		p.scanOf[k[0]] = uint8(len(p.Scans))
		p.Scans = append(p.Scans, PrefilterScan{Key: k[0], keyText: k})
	}
	p.keys = NewKeyWords(ScanKeys)
	for i, c := range all {
		if slices.Contains(all[:i], c) {
			continue
		}
		if c.SizeAfter {
			b := &p.Scans[p.scanOf['B']]
			b.sizeVerbs = append(b.sizeVerbs, c.Text)
			for d := byte('0'); d <= '9'; d++ {
				b.endsSize[d] = true
			}
			b.endsSize['i'] = true
			continue
		}
		at := CueKey(c.Text)
		switch {
		case at < 0:
			panic("oom: prefilter cue " + strconv.Quote(c.Text) + " holds none of the scan keys (scanKeys)")
		case at == len(c.Text)-1:
			panic("oom: prefilter cue " + strconv.Quote(c.Text) + " ends with its key: a hit is confirmed by the byte after it")
		}
		p.Scans[p.scanOf[c.Text[at]]].addCue(newKeyedCue(c, at))
	}
	for k := range p.Scans {
		p.Scans[k].gateOnPrevWord()
	}
	return p
}

// CueKey returns where in text the key MayContain scans for lies: the first of scanKeys that text holds, -1 for none.
func CueKey(text string) int {
	for _, k := range ScanKeys {
		if i := strings.Index(text, k); i >= 0 {
			return i
		}
	}
	return -1
}

// addCue files c under every byte that may follow its key byte (past the end of the text a byte reads as 0).
func (scan *PrefilterScan) addCue(c keyedCue) {
	if len(scan.cueSets) == 0 {
		scan.cueSets = []cueSet{{}} // set 0: no cue
		for b := range scan.leads {
			scan.leads[b] = [2]word{impossible, impossible}
		}
	}
	// Bytes that share a cue set keep sharing one after the addition.
	remap := map[uint8]uint8{}
	for b := range 256 {
		if c.at+1 < len(c.Text) && !cueByteMatches(c.Text[c.at+1], byte(b)) {
			continue
		}
		old := scan.cueSet[b]
		n, ok := remap[old]
		if !ok {
			if len(scan.cueSets) > 255 {
				panic("oom: too many prefilter cue sets")
			}
			var set cueSet
			for _, o := range scan.cueSets[old].cues {
				set.add(o)
			}
			set.add(c)
			scan.cueSets = append(scan.cueSets, set)
			n = uint8(len(scan.cueSets) - 1)
			remap[old] = n
		}
		scan.cueSet[b] = n
		scan.leads[b] = scan.cueSets[n].leads()
	}
}

// cueByteMatches reports whether byte b of a text matches cue byte c.
func cueByteMatches(c, b byte) bool {
	switch c {
	case ' ':
		return IsSpace(b)
	case '#':
		return b >= '0' && b <= '9'
	}
	return b == c
}
