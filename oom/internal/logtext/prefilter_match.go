// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// prevRunEnd returns where the run before the whitespace before s[j] ends, -1 when no whitespace stands before s[j].
func prevRunEnd(s string, j int) int {
	if j <= 0 || j > len(s) || !IsSpace(s[j-1]) {
		return -1
	}
	for j > 0 && IsSpace(s[j-1]) {
		j--
	}
	return j
}

// mayEndSize reports whether the 'B' at s[i] may end a size: it follows a digit ("512B") or a digit and a unit
// ("1.97GiB"); "61.2 GiB", "HBM" and "80GB" do not.
func mayEndSize(s string, i int) bool {
	return i >= 1 && logheader.IsDigit(s[i-1]) || i >= 3 && s[i-1] == 'i' && logheader.IsDigit(s[i-3])
}

// word8 returns the eight bytes at s[i:] as a little-endian word, zero past
// the end of s (a NUL never occurs in a cue, so a padded word cannot match).
func word8(s string, i int) uint64 {
	if i+8 <= len(s) {
		return load64(s[i : i+8])
	}
	return word8Tail(s, i)
}

// word8Tail is word8 near the end of s, kept out of line so that the common case stays small.
//
//go:noinline
func word8Tail(s string, i int) uint64 {
	var w uint64
	for b := 0; i+b < len(s); b++ {
		w |= uint64(s[i+b]) << (8 * b)
	}
	return w
}

// nextHeadMatches checks the run after the whitespace after the key's run
// (see keyedCue.nextHead); j is where the key's run ends in s.
func (c *keyedCue) nextHeadMatches(s string, j int) bool {
	if j >= len(s) || !IsSpace(s[j]) {
		return false
	}
	j = SkipSpace(s, j)
	return word8(s, j)&c.nextHead.mask == c.nextHead.word
}

// matchAt reports whether the cue, whose head word matched, matches around s[i], where its key byte lies.
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
	return ok && (c.Near == "" || strings.Contains(s[end:min(len(s), end+CueNearSpan)], c.Near))
}

// matchCue matches c.text around s[i], where its key byte c.at lies, and returns the index just past the match, for a
// cue with spaces or '#' (the caller settles plain ones).
func matchCue(s string, i int, c *keyedCue) (end int, ok bool) {
	j := i // backwards: c.text[:c.at] must end at i
	for k := c.at - 1; k >= 0; k-- {
		if c.Text[k] == ' ' {
			if j = prevRunEnd(s, j); j < 0 {
				return 0, false
			}
			continue
		}
		if j == 0 || !cueByteMatches(c.Text[k], s[j-1]) {
			return 0, false
		}
		j--
	}
	j = i // forwards: c.text[c.at:] must start at i
	for k := c.at; k < len(c.Text); k++ {
		if c.Text[k] == ' ' {
			if j >= len(s) || !IsSpace(s[j]) {
				return 0, false
			}
			j = SkipSpace(s, j)
			continue
		}
		if j >= len(s) || !cueByteMatches(c.Text[k], s[j]) {
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
	case logheader.IsDigit(p): // 512B, (33554432B)
	default: // MB, GB, words that merely contain a B
		return false
	}
	if !logheader.IsDigit(s[j-1]) {
		return false
	}
	for j > 0 && (logheader.IsDigit(s[j-1]) || s[j-1] == '.' || s[j-1] == ',') {
		j--
	}
	before := s[max(0, j-256):j] // bounded: MayContain stays linear in len(s)
	// A wrapped line may continue with a re-logged header: skip it. IndexByte (vectorised) first: nearly every text
	// is one line, and the backward LastIndexByte is a byte-by-byte loop.
	if k := LastNewline(before); k >= 0 && logheader.Strip(before[k+1:]) == "" {
		before = before[:k+1]
	}
	if t := trimSpaceRight(before); len(t) < len(before) { // the size must follow a space
		before = t
	} else {
		return false
	}
	return slices.ContainsFunc(verbs, func(v string) bool { return strings.HasSuffix(before, v) })
}

// LastNewline is strings.LastIndexByte(s, '\n') behind a vectorised IndexByte: on a one-line text (nearly all) it is
// ~15x faster than the backward byte loop alone (BenchmarkLastNewline).
func LastNewline(s string) int {
	if strings.IndexByte(s, '\n') < 0 {
		return -1
	}
	return strings.LastIndexByte(s, '\n')
}
