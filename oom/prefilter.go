// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"slices"
	"strconv"
	"strings"
)

// MayContain reports whether text could hold an XLA OOM message or a
// memory-pressure warning. It is the cheap first pass run on every record:
// false means certainly not an OOM.
//
// Design (measured in bench_test.go, BENCHMARKS.md): every cue holds one of
// a few keys (scanKeys), bytes or a word that are rare in ordinary log
// lines; MayContain finds the keys' hits and confirms only those. Where the
// processor has AVX2 one pass over the text finds every key's hits, 64
// bytes at a time (keyscan.go); elsewhere one pass per key does
// (mayContainPerKey). A hit is confirmed only when a cue can continue with
// the byte after it (or a size may end at it; for the word, when the word
// before it ends as a cue's does), then with one or two word comparisons
// against those cues' first eight bytes, and only then character by
// character. The cues come from three places, turned into tables by
// buildPrefilter:
//
//   - statusCues below: the status and wrapper words XLA prints around any
//     family (RESOURCE_EXHAUSTED, Resource exhausted, the catalog's code
//     names, the drivers' out-of-memory error names);
//   - each family's own cues (family.cues): the phrases that let its message
//     through when it is printed bare, as a log line or an exception's
//     message printed alone;
//   - genericCues: the statements the last-resort layer reads.
//
// It allocates nothing and costs about 1.8x one strings.Contains on the
// ordinary corpus with AVX2 (BenchmarkMayContainRatio), 5.7x without
// (BenchmarkMayContainPerKeyRatio); one strings.Contains per phrase costs ~25x.
//
// What it lets through that is not an OOM (gRPC RESOURCE_EXHAUSTED, Python
// RuntimeErrors, "failed to allocate" in other programs' lines) Recognize
// rejects.
func (z *Recognizer) MayContain(text string) bool {
	p := &z.prefilter
	if onePassScan && len(text) >= minOnePassLen && len(text) <= maxOnePassLen {
		var hits [maxKeyHits]int32
		for from := 0; ; {
			n, next := keyHits(text, from, &p.vectors, &hits)
			for _, h := range hits[:n] {
				// confirmHit, written out: most hits stop at its first test.
				i := int(h)
				scan := &p.scans[p.scanOf[text[i]]]
				if scan.prevBefore < 0 {
					if (i+1 >= len(text) || scan.cueSet[text[i+1]] == 0) && (i == 0 || !scan.endsSize[text[i-1]]) {
						continue
					}
				} else if !scan.wordWorthConfirming(text, i) {
					continue
				}
				if scan.confirm(text, i) {
					return true
				}
			}
			if n < maxKeyHits {
				break
			}
			from = next
		}
		// The scan leaves the last three bytes out: only a single key can hit
		// there.
		end := text[len(text)-(wordKeyLen-1):]
		if !p.singleKey[end[0]] && !p.singleKey[end[1]] && !p.singleKey[end[2]] {
			return false
		}
		for i := len(text) - (wordKeyLen - 1); i < len(text); i++ {
			if p.singleKey[text[i]] && p.confirmHit(text, i) {
				return true
			}
		}
		return false
	}
	return p.mayContainPerKey(text)
}

// mayContainPerKey is MayContain with one pass per key (strings.IndexByte
// for a byte, strings.Index for a word): where the one-pass scan does not
// run (no AVX2, short texts). It confirms the same hits, so it answers
// alike (checked by the differential tests). The word's pass is the costly
// one (BENCHMARKS.md): its first byte is common in log text.
func (p *prefilter) mayContainPerKey(text string) bool {
	for k := range p.scans {
		scan := &p.scans[k]
		for off := 0; ; {
			var j int
			if len(scan.keyText) == 1 {
				j = strings.IndexByte(text[off:], scan.key)
			} else {
				j = strings.Index(text[off:], scan.keyText)
			}
			if j < 0 {
				break
			}
			if i := off + j; scan.worthConfirming(text, i) && scan.confirm(text, i) {
				return true
			}
			off += j + 1
		}
	}
	return false
}

// confirmHit confirms the hit of a key at text[i].
func (p *prefilter) confirmHit(text string, i int) bool {
	scan := &p.scans[p.scanOf[text[i]]]
	return scan.worthConfirming(text, i) && scan.confirm(text, i)
}

// worthConfirming: most hits stop here, at the byte after the key (no cue
// continues with it) or before it (no size ends with it), or for a word key
// at the word and the last byte of the word before it.
func (scan *prefilterScan) worthConfirming(s string, i int) bool {
	if scan.prevBefore >= 0 {
		return scan.wordWorthConfirming(s, i)
	}
	return i+1 < len(s) && scan.cueSet[s[i+1]] != 0 || i > 0 && scan.endsSize[s[i-1]]
}

// wordWorthConfirming is worthConfirming for a scan whose cues all have a
// word before the key's run (see prefilterScan.prevBefore).
func (scan *prefilterScan) wordWorthConfirming(s string, i int) bool {
	if !strings.HasPrefix(s[i:], scan.keyText) {
		return false // the one-pass scan compares only some of a word key's bytes
	}
	e := prevRunEnd(s, i-scan.prevBefore)
	return e > 0 && scan.prevLast[s[e-1]]
}

// gateOnPrevWord sets prevBefore and prevLast when every cue of the scan
// has a word before its key's run and the runs hold the key alike.
func (scan *prefilterScan) gateOnPrevWord() {
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

// cue is a phrase whose presence lets a record through MayContain. In text,
// a space stands for a run of one or more whitespace bytes (a wrapped line
// still passes) and '#' for one decimal digit.
type cue struct {
	text string
	// near, when set, must follow the cue within cueNearSpan bytes.
	near string
	// sizeAfter: text is a verb that a size with a byte unit follows
	// ("allocate 1.97GiB", "request for 32.00MiB (33554432B)"); the scan
	// finds the unit's 'B' and looks back for the verb.
	sizeAfter bool
}

const cueNearSpan = 256

// statusCues are the words around any family's message: a status code, an
// exception or error name, a driver's out-of-memory error. The catalog's code
// names are added by buildPrefilter.
var statusCues = []cue{
	{text: "RESOURCE_EXHAUSTED"},
	{text: "Resource exhausted"},
	{text: "ResourceExhausted"},
	{text: "RuntimeError"},
	{text: "ERROR_OUT_OF_MEMORY"}, // CUDA_ERROR_OUT_OF_MEMORY
	{text: "ERROR_OutOfMemory"},   // HIP_ERROR_OutOfMemory
	internalMemoryCue,
}

// internalMemoryCue: an INTERNAL status that speaks of memory ("INTERNAL:
// Out of memory", "INTERNAL: 'memref.alloca' op ...") is what str(e) of an
// XlaRuntimeError prints for such failures; one near word serves them all
// (one search of the text after the status).
var internalMemoryCue = cue{text: "INTERNAL", near: "mem"}

// prefilterScan is one key MayContain scans for and the cues it confirms.
type prefilterScan struct {
	key     byte   // the key's first byte
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

// confirm checks the hit of scan.key at s[i] against the cues that may match
// there, then against the size verbs.
func (scan *prefilterScan) confirm(s string, i int) bool {
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
func (scan *prefilterScan) confirmCues(s string, i int, w uint64) bool {
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

// prevRunEnd returns where the run before the whitespace before s[j] ends,
// -1 when no whitespace stands before s[j].
func prevRunEnd(s string, j int) int {
	if j <= 0 || j > len(s) || !isSpace(s[j-1]) {
		return -1
	}
	for j > 0 && isSpace(s[j-1]) {
		j--
	}
	return j
}

// mayEndSize reports whether the 'B' at s[i] may end a size: it follows a
// digit ("512B") or a digit and a unit ("1.97GiB"); "61.2 GiB", "HBM" and
// "80GB" do not.
func mayEndSize(s string, i int) bool {
	return i >= 1 && isDigit(s[i-1]) || i >= 3 && s[i-1] == 'i' && isDigit(s[i-3])
}

// cueSet is the cues that may match after one byte. heads holds up
// to the first eight bytes of each cue's after run, and common the bytes all
// of them share, so that one or two word comparisons reject nearly every hit.
type cueSet struct {
	common, commonMask uint64
	heads              []word
	cues               []keyedCue
}

// impossible is a word no text matches: the key byte is never NUL.
var impossible = word{word: 0, mask: 0xff}

// leads returns two words one of which a hit must match for any cue of the
// set to match (see prefilterScan.leads).
func (set *cueSet) leads() [2]word {
	var distinct []word
	for _, h := range set.heads {
		if !slices.Contains(distinct, h) {
			distinct = append(distinct, h)
		}
	}
	switch len(distinct) {
	case 0:
		return [2]word{impossible, impossible}
	case 1:
		return [2]word{distinct[0], impossible}
	case 2:
		return [2]word{distinct[0], distinct[1]}
	}
	return [2]word{{set.common, set.commonMask}, impossible}
}

// word is up to eight bytes of text, little-endian, and the mask of the
// bytes it holds.
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

// word8 returns the eight bytes at s[i:] as a little-endian word, zero past
// the end of s (a NUL never occurs in a cue, so a padded word cannot match).
func word8(s string, i int) uint64 {
	if i+8 <= len(s) {
		t := s[i : i+8]
		return uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
	}
	return word8Tail(s, i)
}

// word8Tail is word8 near the end of s, kept out of line so that the common
// case stays small.
//
//go:noinline
func word8Tail(s string, i int) uint64 {
	var w uint64
	for b := 0; i+b < len(s); b++ {
		w |= uint64(s[i+b]) << (8 * b)
	}
	return w
}

// keyedCue is a cue and the index of its key byte in its text. before and
// after are the literal runs (no space, no '#') that end just before and
// start at the key; a plain cue (no space or '#' at all) is settled by them.
type keyedCue struct {
	cue
	at            int
	before, after string
	plain         bool
	beforeWord    word
	// wordsCoverRuns: both runs fit in eight bytes, so the word comparisons
	// settle them without a string comparison.
	wordsCoverRuns bool
	// prevTail is up to the last eight bytes of the literal run that a
	// space separates from before ("memory" in "memory allocating"), and
	// nextHead up to the first eight bytes of the literal run that a space
	// separates from after ("of" in "allocation of"); zero when there is
	// none. A word comparison each rejects most hits that share the key's
	// word ("allocating") before matchCue runs.
	prevTail, nextHead word
	prevLen            int // the bytes prevTail holds
}

func newKeyedCue(c cue, at int) keyedCue {
	start := strings.LastIndexAny(c.text[:at], " #") + 1
	end := len(c.text)
	if k := strings.IndexAny(c.text[at:], " #"); k >= 0 {
		end = at + k
	}
	k := keyedCue{cue: c, at: at, before: c.text[start:at], after: c.text[at:end], plain: start == 0 && end == len(c.text)}
	k.beforeWord = wordOf(k.before)
	k.wordsCoverRuns = len(k.before) <= 8 && len(k.after) <= 8
	if start >= 2 && c.text[start-1] == ' ' && c.text[start-2] != ' ' && c.text[start-2] != '#' {
		prev := c.text[strings.LastIndexAny(c.text[:start-1], " #")+1 : start-1]
		k.prevTail, k.prevLen = wordOf(prev[max(0, len(prev)-8):]), min(len(prev), 8)
	}
	if end+1 < len(c.text) && c.text[end] == ' ' && c.text[end+1] != ' ' && c.text[end+1] != '#' {
		next := c.text[end+1:]
		if n := strings.IndexAny(next, " #"); n >= 0 {
			next = next[:n]
		}
		k.nextHead = wordOf(next)
	}
	return k
}

// nextHeadMatches checks the run after the whitespace after the key's run
// (see keyedCue.nextHead); j is where the key's run ends in s.
func (c *keyedCue) nextHeadMatches(s string, j int) bool {
	if j >= len(s) || !isSpace(s[j]) {
		return false
	}
	j = skipSpace(s, j)
	return word8(s, j)&c.nextHead.mask == c.nextHead.word
}

// matchAt reports whether the cue, whose head word matched, matches around
// s[i], where its key byte lies.
func (c *keyedCue) matchAt(s string, i int) bool {
	if c.before != "" && (i < len(c.before) || word8(s, i-len(c.before))&c.beforeWord.mask != c.beforeWord.word) {
		return false
	}
	if c.prevLen > 0 {
		if e := prevRunEnd(s, i-len(c.before)); e < c.prevLen || word8(s, e-c.prevLen)&c.prevTail.mask != c.prevTail.word {
			return false
		}
	}
	if !c.wordsCoverRuns && (s[i-len(c.before):i] != c.before || !strings.HasPrefix(s[i:], c.after)) {
		return false
	}
	if c.nextHead.mask != 0 && !c.nextHeadMatches(s, i+len(c.after)) {
		return false
	}
	end, ok := i+len(c.after), true
	if !c.plain {
		end, ok = matchCue(s, i, c)
	}
	return ok && (c.near == "" || strings.Contains(s[end:min(len(s), end+cueNearSpan)], c.near))
}

// prefilter is MayContain's tables: one scan per key, the key bytes the
// one-pass scan reads, and which scan each key's first byte belongs to.
type prefilter struct {
	scans     []prefilterScan
	scanOf    [256]uint8 // the index in scans of the scan for a key's first byte
	singleKey [256]bool  // single-byte keys
	vectors   keyVectors
}

// scanKeys are the keys MayContain scans for, one byte or a pair of bytes,
// chosen from measured byte frequencies of log text (BENCHMARKS.md): rare
// in ordinary lines, and one of them in every cue. A cue takes the first
// key of this list that its text holds. Each key's first byte is distinct.
var scanKeys = []string{"R", "B", "lloc"}

// buildPrefilter turns the status cues, the catalog's code names and the
// families' and the last-resort layer's cues into the scan tables. It
// panics on a cue that holds no key.
func buildPrefilter(cues []cue) prefilter {
	var p prefilter
	for _, k := range scanKeys {
		if len(k) == 1 {
			p.singleKey[k[0]] = true
		}
		p.scanOf[k[0]] = uint8(len(p.scans))
		p.scans = append(p.scans, prefilterScan{key: k[0], keyText: k})
	}
	p.vectors = newKeyVectors(scanKeys)
	all := append([]cue(nil), statusCues...)
	for _, e := range catalog {
		// The names without an 'R' or a 'B' (the CompileTime* ones) are not
		// cues: XLA prints them only after "RESOURCE_EXHAUSTED: Ennnn: ".
		if strings.ContainsAny(e.Name, "RB") {
			all = append(all, cue{text: e.Name})
		}
	}
	all = append(all, cues...)
	for i, c := range all {
		if slices.Contains(all[:i], c) {
			continue
		}
		if c.sizeAfter {
			b := &p.scans[p.scanOf['B']]
			b.sizeVerbs = append(b.sizeVerbs, c.text)
			for d := byte('0'); d <= '9'; d++ {
				b.endsSize[d] = true
			}
			b.endsSize['i'] = true
			continue
		}
		at := cueKey(c.text)
		switch {
		case at < 0:
			panic("oom: prefilter cue " + strconv.Quote(c.text) + " holds none of the scan keys (scanKeys)")
		case at == len(c.text)-1:
			panic("oom: prefilter cue " + strconv.Quote(c.text) + " ends with its key: a hit is confirmed by the byte after it")
		}
		p.scans[p.scanOf[c.text[at]]].addCue(newKeyedCue(c, at))
	}
	for k := range p.scans {
		p.scans[k].gateOnPrevWord()
	}
	return p
}

// cueKey returns where in text the key MayContain scans for lies: the first
// of scanKeys that text holds, -1 for none.
func cueKey(text string) int {
	for _, k := range scanKeys {
		if i := strings.Index(text, k); i >= 0 {
			return i
		}
	}
	return -1
}

// addCue files c under every byte that may follow its key byte (past the
// end of the text a byte reads as 0).
func (scan *prefilterScan) addCue(c keyedCue) {
	if len(scan.cueSets) == 0 {
		scan.cueSets = []cueSet{{}} // set 0: no cue
		for b := range scan.leads {
			scan.leads[b] = [2]word{impossible, impossible}
		}
	}
	// Bytes that share a cue set keep sharing one after the addition.
	remap := map[uint8]uint8{}
	for b := range 256 {
		if c.at+1 < len(c.text) && !cueByteMatches(c.text[c.at+1], byte(b)) {
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
		return isSpace(b)
	case '#':
		return b >= '0' && b <= '9'
	}
	return b == c
}

// matchCue matches c.text around s[i], where its key byte c.at lies, and
// returns the index just past the match, for a cue with spaces or '#' (the
// caller settles plain ones).
func matchCue(s string, i int, c *keyedCue) (end int, ok bool) {
	j := i // backwards: c.text[:c.at] must end at i
	for k := c.at - 1; k >= 0; k-- {
		if c.text[k] == ' ' {
			if j == 0 || !isSpace(s[j-1]) {
				return 0, false
			}
			for j > 0 && isSpace(s[j-1]) {
				j--
			}
			continue
		}
		if j == 0 || !cueByteMatches(c.text[k], s[j-1]) {
			return 0, false
		}
		j--
	}
	j = i // forwards: c.text[c.at:] must start at i
	for k := c.at; k < len(c.text); k++ {
		if c.text[k] == ' ' {
			if j >= len(s) || !isSpace(s[j]) {
				return 0, false
			}
			j = skipSpace(s, j)
			continue
		}
		if j >= len(s) || !cueByteMatches(c.text[k], s[j]) {
			return 0, false
		}
		j++
	}
	return j, true
}

// sizeFollowsVerb checks a 'B' at s[i]: the end of a size with a byte unit
// (512B, 33554432B, 1.97GiB) that follows one of verbs and whitespace.
func sizeFollowsVerb(s string, i int, verbs []string) bool {
	if i == 0 {
		return false
	}
	j := i
	switch p := s[i-1]; {
	case p == 'i': // KiB MiB GiB TiB PiB EiB
		if i < 3 || strings.IndexByte("KMGTPE", s[i-2]) < 0 {
			return false
		}
		j -= 2
	case p >= '0' && p <= '9': // 512B, (33554432B)
	default: // MB, GB, words that merely contain a B
		return false
	}
	if s[j-1] < '0' || s[j-1] > '9' {
		return false
	}
	for j > 0 && (s[j-1] >= '0' && s[j-1] <= '9' || s[j-1] == '.' || s[j-1] == ',') {
		j--
	}
	before := s[max(0, j-256):j] // bounded: MayContain stays linear in len(s)
	// A wrapped line may continue with a re-logged header: skip it.
	// IndexByte (vectorised) first: nearly every text is one line, and the
	// backward LastIndexByte is a byte-by-byte loop.
	if k := lastNewline(before); k >= 0 && stripHeaders(before[k+1:]) == "" {
		before = before[:k+1]
	}
	if t := trimSpaceRight(before); len(t) < len(before) { // the size must follow a space
		before = t
	} else {
		return false
	}
	for _, v := range verbs {
		if strings.HasSuffix(before, v) {
			return true
		}
	}
	return false
}

// lastNewline is strings.LastIndexByte(s, '\n') behind a vectorised
// IndexByte: on a one-line text (nearly all) it is ~15x faster than the
// backward byte loop alone (BenchmarkLastNewline).
func lastNewline(s string) int {
	if strings.IndexByte(s, '\n') < 0 {
		return -1
	}
	return strings.LastIndexByte(s, '\n')
}
