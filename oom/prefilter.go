// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"slices"
	"strings"
)

// MayContain reports whether text could hold an XLA OOM message or a
// memory-pressure warning. It is the
// cheap first pass run on every record: false means certainly not an OOM.
//
// Design (measured in bench_test.go): searching one needle with
// strings.Contains costs one SIMD strings.IndexByte pass over the record plus
// a branch per occurrence of the needle's first byte. Every extra pass costs
// as much again, and every hit on a common byte costs a mispredicted branch,
// so MayContain scans only for bytes that are rare in ordinary log lines but
// present in every XLA OOM message ('R' and 'B' for today's cues). A hit is
// confirmed only when a cue can continue with the byte after it, then with
// one or two word comparisons against those cues' first eight bytes, and
// only then character by character. The cues come from two places, both
// turned into tables by buildPrefilter:
//
//   - statusCues below: the status and wrapper words XLA prints around any
//     family (RESOURCE_EXHAUSTED, Resource exhausted, the catalog's code
//     names, the drivers' out-of-memory error names);
//   - each family's own cues (family.cues): the phrase that lets its message
//     through when it is printed bare, as a log line without a status.
//
// A cue whose text holds neither 'R' nor 'B' adds a scan for its own key
// byte, which BenchmarkMayContainRatio will show.
//
// It allocates nothing and costs about 1.46x one strings.Contains on ordinary
// lines (BenchmarkMayContainRatio); one strings.Contains per phrase costs ~25x.
//
// What it lets through that is not an OOM (gRPC RESOURCE_EXHAUSTED, Python
// RuntimeErrors, TensorFlow-native OOMs) Recognize rejects. What it misses:
// a family headline printed with no status, no wrapper naming an error and
// none of its family's cues, e.g. a bare "Out of memory allocating N bytes."
// quoted alone; XLA prints those messages as statuses ("RESOURCE_EXHAUSTED:
// ..."), which MayContain always passes.
func (z *Recognizer) MayContain(text string) bool {
	// The preferred keys get loops of their own, with the byte a constant:
	// a loop over the scans measured slower (BenchmarkMayContainRatio). The
	// scans are held in locals: measured a little faster than through z.
	rs, bs := &z.prefilter.r, &z.prefilter.b
	for off := 0; ; {
		j := strings.IndexByte(text[off:], 'R')
		if j < 0 {
			break
		}
		// Most hits stop at the byte after the 'R': no cue continues with it.
		if i := off + j + 1; i < len(text) && rs.cueSet[text[i]] != 0 && rs.confirm(text, off+j) {
			return true
		}
		off += j + 1
	}
	for off := 0; ; {
		j := strings.IndexByte(text[off:], 'B')
		if j < 0 {
			break
		}
		// Worth confirming when a cue continues with the next byte or a size
		// may end at this one.
		if i := off + j; (i+1 < len(text) && bs.cueSet[text[i+1]] != 0 || i > 0 && bs.endsSize[text[i-1]]) && bs.confirm(text, i) {
			return true
		}
		off += j + 1
	}
	return z.prefilter.others != nil && z.prefilter.scanOthers(text)
}

// scanOthers runs the scans for keys other than the preferred ones (none
// unless a cue has neither 'R' nor 'B').
func (p *prefilter) scanOthers(text string) bool {
	for k := range p.others {
		scan := &p.others[k]
		for off := 0; ; {
			j := strings.IndexByte(text[off:], scan.key)
			if j < 0 {
				break
			}
			if scan.confirm(text, off+j) {
				return true
			}
			off += j + 1
		}
	}
	return false
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
}

// prefilterScan is one byte MayContain scans for and the cues it confirms.
type prefilterScan struct {
	key byte
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
	for k, head := range set.heads {
		if w&head.mask == head.word && set.cues[k].matchAt(s, i) {
			return true
		}
	}
	return false
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
	return k
}

// matchAt reports whether the cue, whose head word matched, matches around
// s[i], where its key byte lies.
func (c *keyedCue) matchAt(s string, i int) bool {
	if c.before != "" && (i < len(c.before) || word8(s, i-len(c.before))&c.beforeWord.mask != c.beforeWord.word) {
		return false
	}
	if !c.wordsCoverRuns && (s[i-len(c.before):i] != c.before || !strings.HasPrefix(s[i:], c.after)) {
		return false
	}
	end, ok := i+len(c.after), true
	if !c.plain {
		end, ok = matchCue(s, i, c)
	}
	return ok && (c.near == "" || strings.Contains(s[end:min(len(s), end+cueNearSpan)], c.near))
}

// prefilter is MayContain's tables: the scans for the two preferred keys,
// then for any other key a cue needed.
type prefilter struct {
	r, b   prefilterScan
	others []prefilterScan
}

// preferredKeys are the bytes MayContain scans for first: rare in ordinary
// lines, common to the status words.
const preferredKeys = "RB"

// buildPrefilter turns the status cues, the catalog's code names and the
// families' cues into the scan tables.
func buildPrefilter(familyCues []cue) prefilter {
	p := prefilter{r: prefilterScan{key: 'R'}, b: prefilterScan{key: 'B'}}
	all := append([]cue(nil), statusCues...)
	for _, e := range catalog {
		if strings.ContainsAny(e.Name, preferredKeys) {
			all = append(all, cue{text: e.Name})
		}
	}
	all = append(all, familyCues...)
	for i, c := range all {
		if slices.Contains(all[:i], c) {
			continue
		}
		if c.sizeAfter {
			p.b.sizeVerbs = append(p.b.sizeVerbs, c.text)
			for b := byte('0'); b <= '9'; b++ {
				p.b.endsSize[b] = true
			}
			p.b.endsSize['i'] = true
			continue
		}
		at := cueKey(c.text)
		p.scanFor(c.text[at]).addCue(newKeyedCue(c, at))
	}
	return p
}

// cueKey picks the byte of text MayContain scans for: a preferred key if the
// text has one, else its first upper-case letter, else its first byte.
func cueKey(text string) int {
	for _, k := range []byte(preferredKeys) {
		if i := strings.IndexByte(text, k); i >= 0 {
			return i
		}
	}
	for i := 0; i < len(text); i++ {
		if text[i] >= 'A' && text[i] <= 'Z' {
			return i
		}
	}
	return 0
}

// scanFor returns the scan for key, adding one to others if new.
func (p *prefilter) scanFor(key byte) *prefilterScan {
	switch key {
	case 'R':
		return &p.r
	case 'B':
		return &p.b
	}
	for i := range p.others {
		if p.others[i].key == key {
			return &p.others[i]
		}
	}
	p.others = append(p.others, prefilterScan{key: key})
	return &p.others[len(p.others)-1]
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
