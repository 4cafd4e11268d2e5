package oom

import (
	"slices"
	"strings"
)

// MayContain reports whether text could hold an XLA OOM message. It is the
// cheap first pass run on every record: false means certainly not an OOM.
//
// Design (measured in bench_test.go): searching one needle with
// strings.Contains costs one SIMD strings.IndexByte pass over the record plus
// a branch per occurrence of the needle's first byte. Every extra pass costs
// as much again, and every hit on a common byte costs a mispredicted branch,
// so MayContain scans only for bytes that are rare in ordinary log lines but
// present in every XLA OOM message ('R' and 'B' for today's cues), and
// confirms each hit against the cues keyed by that byte and the byte after
// it. The cues come from two places, both turned into tables by
// buildPrefilter:
//
//   - statusCues below: the status and wrapper words XLA prints around any
//     family (RESOURCE_EXHAUSTED, Resource exhausted, the catalog's code
//     names, the drivers' out-of-memory error names);
//   - each family's own cues (family.cues): the phrase that lets its message
//     through when it is printed bare, as a log line without a status.
//
// A cue whose text holds neither 'R' nor 'B' adds a scan for its own rarest
// byte, which BenchmarkMayContainRatio will show.
//
// It allocates nothing and costs about 1.4x one strings.Contains on ordinary
// lines (BenchmarkMayContainRatio); one strings.Contains per phrase costs ~25x.
//
// What it lets through that is not an OOM (gRPC RESOURCE_EXHAUSTED, Python
// RuntimeErrors, TensorFlow-native OOMs) Recognize rejects. What it misses:
// a family headline printed with no status, no wrapper naming an error and
// none of its family's cues, e.g. a bare "Out of memory allocating N bytes."
// quoted alone; XLA prints those messages as statuses ("RESOURCE_EXHAUSTED:
// ..."), which MayContain always passes.
func MayContain(text string) bool {
	// The preferred keys get loops of their own, with the byte a constant:
	// a loop over prefilterScans measured ~15% slower (BenchmarkMayContainRatio).
	for off := 0; ; {
		j := strings.IndexByte(text[off:], 'R')
		if j < 0 {
			break
		}
		if scanR.worthConfirming(text, off+j) && scanR.confirm(text, off+j) {
			return true
		}
		off += j + 1
	}
	for off := 0; ; {
		j := strings.IndexByte(text[off:], 'B')
		if j < 0 {
			break
		}
		if scanB.worthConfirming(text, off+j) && scanB.confirm(text, off+j) {
			return true
		}
		off += j + 1
	}
	return otherScans != nil && scanOthers(text)
}

// scanOthers runs the scans for keys other than the preferred ones (none
// unless a cue has neither 'R' nor 'B').
func scanOthers(text string) bool {
	for k := range otherScans {
		scan := &otherScans[k]
		for off := 0; ; {
			j := strings.IndexByte(text[off:], scan.key)
			if j < 0 {
				break
			}
			if scan.worthConfirming(text, off+j) && scan.confirm(text, off+j) {
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
	// cueSet[b] indexes cueSets: the cues whose key byte is followed by
	// byte b (0: none). A byte-sized index keeps the table in a few cache
	// lines.
	cueSet  [256]uint8
	cueSets [][]keyedCue
	// sizeVerbs are the sizeAfter cues' verbs (key 'B' only); endsSize is
	// set when there are any.
	sizeVerbs []string
	endsSize  bool
}

// worthConfirming is the inlined first check of a hit at s[i]: does any cue
// start with the bytes around it? Most hits in ordinary text stop here.
func (scan *prefilterScan) worthConfirming(s string, i int) bool {
	var next byte
	if i+1 < len(s) {
		next = s[i+1]
	}
	return scan.cueSet[next] != 0 || scan.endsSize && i >= 2 && isDigit(s[i-1]) ||
		scan.endsSize && i >= 4 && s[i-1] == 'i' && isDigit(s[i-3])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// addCue files c under every byte that may follow its key byte.
func (scan *prefilterScan) addCue(c keyedCue, follows func(b byte) bool) {
	if len(scan.cueSets) == 0 {
		scan.cueSets = [][]keyedCue{nil} // set 0: no cue
	}
	// Bytes that share the same cue set keep sharing one after the addition.
	remap := map[uint8]uint8{}
	for b := range 256 {
		if !follows(byte(b)) {
			continue
		}
		old := scan.cueSet[b]
		n, ok := remap[old]
		if !ok {
			if len(scan.cueSets) > 255 {
				panic("oom: too many prefilter cue sets")
			}
			scan.cueSets = append(scan.cueSets, append(append([]keyedCue(nil), scan.cueSets[old]...), c))
			n = uint8(len(scan.cueSets) - 1)
			remap[old] = n
		}
		scan.cueSet[b] = n
	}
}

// keyedCue is a cue and the index of its key byte in its text. before and
// after are the literal runs (no space, no '#') that end just before and
// start at the key: two string comparisons reject nearly every hit, and
// settle a plain cue (one without space or '#') entirely.
type keyedCue struct {
	cue
	at            int
	before, after string
	plain         bool
	// head and headMask hold up to the first four bytes of after, compared
	// as one word before any string comparison.
	head, headMask uint32
}

func newKeyedCue(c cue, at int) keyedCue {
	start := strings.LastIndexAny(c.text[:at], " #") + 1
	end := len(c.text)
	if k := strings.IndexAny(c.text[at:], " #"); k >= 0 {
		end = at + k
	}
	k := keyedCue{cue: c, at: at, before: c.text[start:at], after: c.text[at:end], plain: start == 0 && end == len(c.text)}
	for b := 0; b < 4 && b < len(k.after); b++ {
		k.head |= uint32(k.after[b]) << (8 * b)
		k.headMask |= 0xff << (8 * b)
	}
	return k
}

// word4 returns the four bytes at s[i:] as a little-endian word, 0 past the end.
func word4(s string, i int) uint32 {
	if i+4 > len(s) {
		var w uint32
		for b := 0; i+b < len(s); b++ {
			w |= uint32(s[i+b]) << (8 * b)
		}
		return w
	}
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// The scans: the two preferred keys, then any other key a cue needed.
var (
	scanR      = prefilterScan{key: 'R'}
	scanB      = prefilterScan{key: 'B'}
	otherScans []prefilterScan
)

// preferredKeys are the bytes MayContain scans for first: rare in ordinary
// lines, common to the status words.
const preferredKeys = "RB"

// buildPrefilter turns the status cues, the catalog's code names and every
// family's cues into the scan tables.
func buildPrefilter() {
	all := append([]cue(nil), statusCues...)
	for _, e := range catalog {
		if strings.ContainsAny(e.Name, preferredKeys) {
			all = append(all, cue{text: e.Name})
		}
	}
	for i := range families {
		all = append(all, families[i].cues...)
	}
	for i, c := range all {
		if slices.Contains(all[:i], c) {
			continue
		}
		if c.sizeAfter {
			scanB.sizeVerbs = append(scanB.sizeVerbs, c.text)
			scanB.endsSize = true
			continue
		}
		at := cueKey(c.text)
		s := scanFor(c.text[at])
		if at+1 == len(c.text) {
			s.addCue(newKeyedCue(c, at), func(byte) bool { return true })
			continue
		}
		s.addCue(newKeyedCue(c, at), func(b byte) bool { return cueByteMatches(c.text[at+1], b) })
	}
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

// scanFor returns the scan for key, adding one to otherScans if new.
func scanFor(key byte) *prefilterScan {
	switch key {
	case 'R':
		return &scanR
	case 'B':
		return &scanB
	}
	for i := range otherScans {
		if otherScans[i].key == key {
			return &otherScans[i]
		}
	}
	otherScans = append(otherScans, prefilterScan{key: key})
	return &otherScans[len(otherScans)-1]
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

// confirm checks the hit of scan.key at s[i] against the cues keyed there.
func (scan *prefilterScan) confirm(s string, i int) bool {
	next := byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	if set := scan.cueSet[next]; set != 0 {
		cues := scan.cueSets[set]
		w := word4(s, i)
		for k := range cues {
			c := &cues[k]
			// The literal runs around the key, inline: nearly every hit
			// stops here, most at the one-word comparison.
			if w&c.headMask != c.head || !strings.HasPrefix(s[i:], c.after) || i < len(c.before) || s[i-len(c.before):i] != c.before {
				continue
			}
			end, ok := i+len(c.after), true
			if !c.plain {
				end, ok = matchCue(s, i, c)
			}
			if ok && (c.near == "" || strings.Contains(s[end:min(len(s), end+cueNearSpan)], c.near)) {
				return true
			}
		}
	}
	return scan.sizeVerbs != nil && sizeFollowsVerb(s, i, scan.sizeVerbs)
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

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func trimSpaceRight(s string) string {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// lastNewline is strings.LastIndexByte(s, '\n') behind a vectorised IndexByte.
func lastNewline(s string) int {
	if strings.IndexByte(s, '\n') < 0 {
		return -1
	}
	return strings.LastIndexByte(s, '\n')
}
