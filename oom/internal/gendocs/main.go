// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command gendocs writes docs/message-formats.md and the family table of
// docs/recognition.md from the message family entries of package oom, so that the
// documentation cannot drift from the grammar. make generate runs it from
// the repository root; its test fails when the committed files differ.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

func main() {
	docs := flag.String("docs", "docs/message-formats.md", "message format reference to write")
	summary := flag.String("summary", "docs/recognition.md", "page whose generated family table to refresh (next to the reference, which it links)")
	flag.Parse()
	if err := write(*docs, *summary); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func write(docsPath, summaryPath string) error {
	if err := os.WriteFile(docsPath, []byte(messageFormats()), 0o644); err != nil {
		return err
	}
	summary, err := os.ReadFile(summaryPath)
	if err != nil {
		return err
	}
	updated, err := replaceBetweenMarkers(string(summary), familiesMarker, familyTable())
	if err != nil {
		return fmt.Errorf("%s: %w", summaryPath, err)
	}
	return os.WriteFile(summaryPath, []byte(updated), 0o644)
}

const familiesMarker = "families"

// replaceBetweenMarkers replaces what lies between the lines
// "<!-- BEGIN GENERATED: name -->" and "<!-- END GENERATED: name -->".
func replaceBetweenMarkers(doc, name, content string) (string, error) {
	begin := "<!-- BEGIN GENERATED: " + name + " -->\n"
	end := "<!-- END GENERATED: " + name + " -->"
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", errors.New("no " + strings.TrimSpace(begin) + " ... " + end + " markers")
	}
	return doc[:i+len(begin)] + content + doc[j:], nil
}

// familyTable is docs/recognition.md's summary: one row per family, each
// linking its entry in message-formats.md in the same directory.
func familyTable() string {
	var b bytes.Buffer
	b.WriteString("| family | kind | message (a real example, from where the message starts) | code | phase |\n|---|---|---|---|---|\n")
	for _, f := range oom.MessageFormats() {
		fmt.Fprintf(&b, "| [`%s`](message-formats.md#%s) | %s | %s | %s | %s |\n",
			f.ID, f.ID, f.Kind, codeSpan(abridge(f.Message, 110)), codeCell(f), f.Phase)
	}
	fmt.Fprintf(&b, "| [`%s`](message-formats.md#%s) | fatal | `RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:` (a code, no readable message) | the printed code | the code's |\n",
		oom.CodeOnlyFamily, oom.CodeOnlyFamily)
	fmt.Fprintf(&b, "| [`%s`](message-formats.md#%s) | last resort | a memory failure no family knows (`SyclMallocDevice: Failed to allocate device memory`), marked `xla.oom.generic` | E0007 | runtime, or compile when the text says so |\n",
		oom.FamilyGeneric, oom.FamilyGeneric)
	return b.String()
}

// codeCell is the family's code, noting that a code printed in the text wins
// (for E1000 families, a vmem or smem space also gives E1001).
func codeCell(f oom.MessageFormat) string {
	if f.Kind == "warning" {
		return "none (tagged `xla.memory.warning`)"
	}
	if f.Code == "E1000" && contains(f.Yields, "space") {
		return "E1000 (vmem/smem: E1001)"
	}
	if f.Category != "" {
		return f.Code + " (category " + f.Category + ")"
	}
	return f.Code
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// abridge cuts s to at most n bytes at a space, marking the cut.
func abridge(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	return s[:cut] + " …"
}

// codeSpan formats s as inline code in a Markdown table cell.
func codeSpan(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// messageFormats is the whole reference, docs/message-formats.md.
func messageFormats() string {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("## Families\n\n| family | kind | code | phase | backend it proves | yields |\n|---|---|---|---|---|---|\n")
	formats := oom.MessageFormats()
	for _, f := range formats {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s | %s |\n", f.ID, f.ID, f.Kind, codeCell(f), f.Phase,
			orNone(f.Backend, "from context"), orNone(strings.Join(f.Yields, ", "), "—"))
	}
	fmt.Fprintf(&b, "| [`%s`](#%s) | fatal | the printed code | the code's | from context | — |\n", oom.CodeOnlyFamily, oom.CodeOnlyFamily)
	fmt.Fprintf(&b, "| [`%s`](#%s) | last resort | E0007 | runtime (compile when the text says so) | from context | requested, free, capacity when stated |\n\n", oom.FamilyGeneric, oom.FamilyGeneric)
	for _, f := range formats {
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", f.ID, f.Summary)
		fmt.Fprintf(&b, "- kind: %s (%s)\n", f.Kind, kindMeaning[f.Kind])
		fmt.Fprintf(&b, "- code: %s; phase: %s; backend it proves: %s\n", codeCell(f), f.Phase, orNone(f.Backend, "none (read from context)"))
		fmt.Fprintf(&b, "- anchor: `%s`\n", f.Anchor)
		fmt.Fprintf(&b, "- yields: %s\n\n", orNone(strings.Join(f.Yields, ", "), "nothing but the family (the sizes come from the messages around it)"))
		fmt.Fprintf(&b, "Grammar (RE2, on flattened text; `<name:size>` is a size in any spelling, see [Sizes](#sizes)):\n\n```\n%s\n```\n\n", f.Grammar)
		example := "Example (a real message, from the tests' fixtures)"
		if f.Kind == "warning" {
			example = "Example (from the warning fixtures of oom/warning_test.go, which name each text's source)"
		}
		fmt.Fprintf(&b, "%s:\n\n```\n%s\n```\n\n", example, f.Example)
	}
	fmt.Fprintf(&b, "### %s\n\n", oom.CodeOnlyFamily)
	b.WriteString(codeOnly)
	b.WriteString("| code | name | category | phase | page |\n|---|---|---|---|---|\n")
	for _, c := range oom.ErrorCodes() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Code, c.Name, c.Category, orNone(c.Phase, "from the message"), orNone(c.DocURL, "none"))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "### %s\n\n", oom.FamilyGeneric)
	b.WriteString(genericLayer)
	b.WriteString(sizeGroupsIntro)
	b.WriteString("| group | means |\n|---|---|\n")
	for _, g := range oom.SizeGroups() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", g.Name, g.Meaning)
	}
	b.WriteString("\n")
	b.WriteString(trailer)
	return b.String()
}

var kindMeaning = map[string]string{
	"fatal":    "a returned status: what the program fails with",
	"log-only": "an allocator or driver log line: the failure only when the record holds no status, otherwise it lends its details to the status",
	"warning":  "a non-fatal memory warning: never reported as an OOM",
}
