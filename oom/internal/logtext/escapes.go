// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logtext

import "strings"

// StripANSI removes terminal colour sequences, which coloured loggers (vLLM, Ray, Jupyter) put around names.
func StripANSI(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z') {
				i = j
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// UnescapeBreaks undoes the \n, \r and \t escapes of a JSON- or repr-escaped multi-line message.
func UnescapeBreaks(s string) string {
	if !strings.Contains(s, `\n`) && !strings.Contains(s, `\t`) && !strings.Contains(s, `\r`) {
		return s
	}
	return breakEscapes.Replace(s)
}

var breakEscapes = strings.NewReplacer(`\n`, "\n", `\r`, "\r", `\t`, "\t")

// stripQuoteMarkers removes a pasted line's markers: a reply's quote ("> "), a Python comment ("# "), pdb's "*** ".
func stripQuoteMarkers(line string) string {
	for range 4 {
		l := strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(l, "> "), l == ">", strings.HasPrefix(l, "# "):
			line = l[1:]
		case strings.HasPrefix(l, "*** "):
			line = l[3:]
		default:
			return line
		}
	}
	return line
}
