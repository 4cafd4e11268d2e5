// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"regexp"
	"strings"
)

// A template is one message a source file can print: the text of its string
// literals with every value the program fills in shown as <placeholder>.
type template struct {
	file string
	line int // first line of the statement that prints it
	text string
}

// hitPattern finds the lines worth a look: status constructors with the
// RESOURCE_EXHAUSTED code and phrases that say memory ran out or an
// allocation failed. Comparisons with the code (kResourceExhausted,
// IsResourceExhausted) are filtered out by requiring a string literal.
const hitPattern = `ResourceExhausted|RESOURCE_EXHAUSTED|[Oo]ut of (host |device )?memory|` +
	`[Ff]ailed to alloc|[Cc]ould not alloc|[Uu]nable to allocate|[Rr]an out of memory|` +
	`\bOOM\b|Oom[A-Z]|[Nn]ot enough (memory|PA budget)|requires too much memory|exceeds the memory limit`

// oomWords decides which extracted texts are OOM-like. A text printed
// through a RESOURCE_EXHAUSTED constructor is kept whatever it says: it is
// either an OOM or a look-alike that must stay untagged.
var oomWords = regexp.MustCompile(`Oom[A-Z]|(?i)out of (host |device )?memory|ran out of memory|fail(ed|ure)? to alloc|` +
	`could not alloc|unable to allocate|not enough (memory|pa budget)|\boom\b|exceeds the memory limit|` +
	`requires too much memory|insufficient (device )?memory`)

var exhaustedStatus = regexp.MustCompile(`ResourceExhausted(Error)?\s*\(|kResourceExhausted|RESOURCE_EXHAUSTED,`)

// extract returns the template printed by the statement that contains line
// (1-based) of src, or false when the statement prints no OOM-like text.
func extract(file string, lines []string, line int) (template, int, bool) {
	start, end := statementBounds(lines, line-1)
	stmt := stripComments(strings.Join(lines[start:end+1], "\n"))
	if !strings.Contains(stmt, `"`) {
		return template{}, end, false
	}
	text := render(stmt)
	text = strings.Join(strings.Fields(text), " ")
	if text == "" || !strings.ContainsFunc(text, isLetter) {
		return template{}, end, false
	}
	if !oomWords.MatchString(text) && !exhaustedStatus.MatchString(stmt) {
		return template{}, end, false
	}
	return template{file: file, line: start + 1, text: text}, end, true
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// statementBounds widens line i to the C++ statement around it: back to the
// line after the previous statement, block or comment, forward to the
// line that ends it (at most 15 lines each way).
func statementBounds(lines []string, i int) (int, int) {
	start := i
	for start > 0 && i-start < 15 {
		prev := strings.TrimSpace(lines[start-1])
		if prev == "" || strings.HasSuffix(prev, ";") || strings.HasSuffix(prev, "{") ||
			strings.HasSuffix(prev, "}") || strings.HasPrefix(prev, "//") || strings.HasPrefix(prev, "#") ||
			strings.HasSuffix(prev, ":") && !strings.HasSuffix(prev, "::") {
			break
		}
		start--
	}
	end := i
	for end < len(lines)-1 && end-i < 15 {
		l := strings.TrimSpace(stripComments(lines[end]))
		if strings.HasSuffix(l, ";") || strings.HasSuffix(l, "{") {
			break
		}
		end++
	}
	return start, end
}

// stripComments drops // comments outside string literals.
func stripComments(s string) string {
	var out strings.Builder
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\' && i+1 < len(s):
			out.WriteByte(c)
			i++
			c = s[i]
		case c == '"':
			inStr = !inStr
		case !inStr && c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			c = '\n'
		}
		out.WriteByte(c)
	}
	return out.String()
}

// A token of a statement: a string literal (its source text, without the
// quotes) or a piece of code between literals.
type token struct {
	literal bool
	text    string
}

func tokenize(s string) []token {
	var toks []token
	var code strings.Builder
	flush := func() {
		if code.Len() > 0 {
			toks = append(toks, token{text: code.String()})
			code.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' && i+2 < len(s) { // a character literal: '"' must not open a string
			if j := strings.IndexByte(s[i+1:], '\''); j >= 0 && j <= 3 {
				code.WriteString(s[i : i+j+2])
				i += j + 1
				continue
			}
		}
		if s[i] != '"' {
			code.WriteByte(s[i])
			continue
		}
		flush()
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		lit := strings.ReplaceAll(s[i+1:min(j, len(s))], `\"`, `"`)
		if n := len(toks); n > 1 && toks[n-2].literal && strings.TrimSpace(toks[n-1].text) == "" {
			toks = toks[:n-1] // literals split over lines are one
		}
		if n := len(toks); n > 0 && toks[n-1].literal { // adjacent literals are one
			toks[n-1].text += lit
		} else {
			toks = append(toks, token{literal: true, text: lit})
		}
		i = j
	}
	flush()
	return toks
}

var formatVerb = regexp.MustCompile(`%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?[sdiuxXfFgGeEpcv]`)

// render joins a statement's literals into one template. A literal with
// printf verbs is a format: each verb becomes the argument that fills it.
// Otherwise the statement concatenates (StrCat, <<): code between two
// literals is a value.
func render(stmt string) string {
	toks := tokenize(stmt)
	var out strings.Builder
	if len(toks) > 1 && !toks[0].literal && strings.Contains(toks[0].text, "<<") {
		// A stream (LOG(ERROR) << a << "text"): values before the first literal.
		for _, part := range strings.Split(toks[0].text, "<<")[1:] {
			if v := valueName(part); v != "" {
				out.WriteString("<" + v + ">")
			}
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !t.literal {
			continue
		}
		if formatVerb.MatchString(t.text) {
			args := formatArgs(toks[i+1:])
			n := 0
			out.WriteString(formatVerb.ReplaceAllStringFunc(t.text, func(string) string {
				name := "value"
				if n < len(args) {
					name = args[n]
				}
				n++
				return "<" + name + ">"
			}))
			return strings.ReplaceAll(out.String(), "%%", "%")
		}
		if alt, n := ternary(toks, i); n > 0 {
			out.WriteString(alt)
			i += n
			continue
		}
		out.WriteString(t.text)
		if i+2 < len(toks) && toks[i+2].literal && !strings.HasSuffix(strings.TrimSpace(toks[i+1].text), "?") {
			if v := valueName(toks[i+1].text); v != "" {
				out.WriteString("<" + v + ">")
			}
		} else if i+1 < len(toks) && i+2 >= len(toks) {
			if v := valueName(toks[i+1].text); v != "" {
				out.WriteString("<" + v + ">")
			}
		}
	}
	return out.String()
}

// ternary renders `cond ? "a" : "b"` starting at literal i as [a|b] ([a]
// when b is empty) and returns how many more tokens it used.
func ternary(toks []token, i int) (string, int) {
	if i == 0 || i+2 >= len(toks) || !strings.HasSuffix(strings.TrimSpace(toks[i-1].text), "?") ||
		strings.TrimSpace(toks[i+1].text) != ":" || !toks[i+2].literal {
		return "", 0
	}
	if toks[i+2].text == "" {
		return "[" + toks[i].text + "]", 2
	}
	return "[" + toks[i].text + "|" + toks[i+2].text + "]", 2
}

// formatArgs splits the code after a format literal into the arguments of
// the call, up to the parenthesis that closes it.
func formatArgs(rest []token) []string {
	var code strings.Builder
	for _, t := range rest {
		if t.literal {
			code.WriteString(`"` + t.text + `"`)
		} else {
			code.WriteString(t.text)
		}
	}
	s := code.String()
	var args []string
	depth, from := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if from >= 0 {
					args = append(args, s[from:i])
				}
				return names(args)
			}
			depth--
		case ',':
			if depth == 0 {
				if from >= 0 {
					args = append(args, s[from:i])
				}
				from = i + 1
			}
		}
	}
	if from >= 0 {
		args = append(args, s[from:])
	}
	return names(args)
}

func names(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		out = append(out, valueName(a))
	}
	return out
}

var (
	namespaces = regexp.MustCompile(`\b(?:absl|tsl|std|strings|xla|se|stream_executor|tensorflow)::`)
	glue       = regexp.MustCompile(`^[\s,;<)]+|[\s,;<(]+$|\bStrCat\($|\bStrFormat\($`)
)

// valueName is a short, stable name for the code that fills a placeholder.
func valueName(code string) string {
	if _, choice, ok := strings.Cut(code, "?"); ok && strings.Contains(choice, ":") {
		choice, _, _ = strings.Cut(choice, ":")
		return valueName(choice)
	}
	v := namespaces.ReplaceAllString(code, "")
	v = strings.Join(strings.Fields(v), " ")
	for {
		w := strings.TrimSpace(glue.ReplaceAllString(v, ""))
		w = strings.TrimPrefix(strings.TrimPrefix(w, "<<"), ",")
		w = strings.TrimSpace(strings.TrimSuffix(w, "<<"))
		if w == v {
			break
		}
		v = w
	}
	v = strings.NewReplacer("->", ".", "<", "", ">", "", "\t", " ").Replace(v)
	for strings.HasSuffix(v, ")") && strings.Count(v, ")") > strings.Count(v, "(") {
		v = v[:len(v)-1]
	}
	if len(v) > 40 {
		v = v[:40]
	}
	return strings.TrimSpace(v)
}
