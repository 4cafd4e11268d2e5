// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// Hard-wrapped pastes: terminals and issue trackers wrap inside a word ("from devic" / "e:") or a number. A break
// joins without a space only when the line before is a terminal's width and ends in a non-space, the next starts
// with one and has no header, and the pieces make a grammar word or a number. A CRI partial line always joins.

// minWrapWidth is the shortest line taken for a terminal's wrap.
const minWrapWidth = 40

// WrapVocabulary holds the words a wrap may split.
type WrapVocabulary map[string]bool

// addWrapWords adds a family expression's literal words to v: an escape, a class, group syntax or a repeat ends a
// word, and a case class such as [Ff] counts as its capital.
func (v WrapVocabulary) addWrapWords(expr string) {
	lit := make([]byte, 0, len(expr))
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; c {
		case '\\':
			i++ // the escaped character is never part of a word
			lit = append(lit, 0)
		case '[':
			if i+3 < len(expr) && expr[i+3] == ']' && expr[i+1]+'a'-'A' == expr[i+2] {
				lit = append(lit, expr[i+1])
				i += 3
				continue
			}
			for i < len(expr) && expr[i] != ']' {
				i++
			}
			lit = append(lit, 0)
		case '(':
			if strings.HasPrefix(expr[i:], "(?P<") || strings.HasPrefix(expr[i:], "(?<") {
				for i < len(expr) && expr[i] != '>' {
					i++
				}
			} else if strings.HasPrefix(expr[i:], "(?") {
				for i < len(expr) && expr[i] != ':' && expr[i] != ')' {
					i++
				}
			}
			lit = append(lit, 0)
		case '{':
			for i < len(expr) && expr[i] != '}' {
				i++
			}
			lit = append(lit, 0)
		default:
			lit = append(lit, c)
		}
	}
	v.addWordsOf(string(lit))
}

func (v WrapVocabulary) addWordsOf(s string) {
	for i := 0; i < len(s); {
		if !logheader.IsWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && logheader.IsWordByte(s[j]) {
			j++
		}
		if j-i >= 2 {
			v[s[i:j]] = true
		}
		i = j
	}
}

// wrapTight reports whether a raw line may be a terminal's wrap.
func wrapTight(raw string) bool {
	raw = strings.TrimSuffix(raw, "\r")
	return len(raw) >= minWrapWidth && !IsSpace(raw[len(raw)-1])
}

// joinsWrap reports whether out and the next line (header stripped) are one word or number split by a wrap.
func (v WrapVocabulary) joinsWrap(out []byte, next string) bool {
	if len(out) == 0 || next == "" {
		return false
	}
	l, r := out[len(out)-1], next[0]
	// A number split by the wrap: "16542" / "5291480B", "196." / "00M".
	if logheader.IsDigit(l) && (logheader.IsDigit(r) || r == '.' || r == ',') ||
		l == '.' && logheader.IsDigit(r) && len(out) > 1 && logheader.IsDigit(out[len(out)-2]) {
		return true
	}
	// A size and its unit: "32.00" / "GiB", "1.97G" / "iB", "1.97Gi" / "B".
	if logheader.IsDigit(l) && unitAhead(next) || unitSplit(out, next) {
		return true
	}
	i := len(out)
	for i > 0 && logheader.IsWordByte(out[i-1]) {
		i--
	}
	j := 0
	for j < len(next) && logheader.IsWordByte(next[j]) {
		j++
	}
	if i == len(out) || j == 0 || len(out)-i+j > 64 {
		return false
	}
	var buf [64]byte
	w := append(append(buf[:0], out[i:]...), next[:j]...)
	return v[string(w)]
}

// unitAhead reports whether s starts with a size unit that is not the start of a longer word.
func unitAhead(s string) bool {
	k := 0
	if k < len(s) && strings.IndexByte("KMGTPE", s[k]) >= 0 {
		k++
		if strings.HasPrefix(s[k:], "iB") {
			k += 2
		}
	} else if k < len(s) && s[k] == 'B' {
		k++
	}
	return k > 0 && (k == len(s) || !logheader.IsWordByte(s[k]))
}

// unitSplit reports whether a unit is split after its first letters ("1.97G" / "iB").
func unitSplit(out []byte, next string) bool {
	n := len(out)
	switch {
	case n >= 2 && strings.IndexByte("KMGTPE", out[n-1]) >= 0 && logheader.IsDigit(out[n-2]):
		return strings.HasPrefix(next, "iB") && (len(next) == 2 || !logheader.IsWordByte(next[2]))
	case n >= 3 && out[n-1] == 'i' && strings.IndexByte("KMGTPE", out[n-2]) >= 0 && logheader.IsDigit(out[n-3]):
		return next[0] == 'B' && (len(next) == 1 || !logheader.IsWordByte(next[1]))
	}
	return false
}

// criPartial reports whether a raw line is a container runtime's partial line ("<time> stdout P <text>").
func criPartial(raw string) bool {
	if len(raw) < 20 || !logheader.IsDigit(raw[0]) {
		return false
	}
	sp := strings.IndexByte(raw, ' ')
	if sp < 0 || !strings.Contains(raw[:sp], "T") {
		return false
	}
	rest := raw[sp+1:]
	return strings.HasPrefix(rest, "stdout P ") || strings.HasPrefix(rest, "stderr P ")
}

// BuildWrapVocabulary collects the words of the families' expressions and the details' anchors.
func BuildWrapVocabulary(exprs, anchors []string) WrapVocabulary {
	v := WrapVocabulary{}
	for _, e := range exprs {
		v.addWrapWords(e)
	}
	for _, a := range anchors {
		v.addWordsOf(a)
	}
	return v
}
