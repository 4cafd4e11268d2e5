// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package generic is the last-resort layer: a memory failure no family knows, stated in an error context.
package generic

import (
	"regexp"
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// FamilyGeneric is Report.Family of a memory failure no family knows (code E0007).
const FamilyGeneric = "generic"

// The last-resort layer runs only when no family and no code matched; a false alarm costs more than a miss, so it
// needs a statement and an error context in one log entry (docs/message-formats.md, "generic").

// genericStatement finds the statements on ASCII-lower-cased flattened text. Groups: "alloc" an allocation
// clause, "kind" a memory kind that ran out, "bare" a bare "out of memory", "driver" a GPU driver's error name.
var genericStatement = regexp.MustCompile(
	`(?P<alloc>\b(?:failed to|fails to|fail to|unable to|could not|couldn't|cannot|can't|not able to) allocate\b|` +
		`\berror (?:while )?allocating\b|\b(?:not enough|insufficient) (?:[a-z]+ )?memory to allocate\b|\ballocation of\b)|` +
		`(?P<kind>\b(?:out of|ran out of|run out of|runs out of|insufficient|not enough) (?:free )?` + genericMemory + `\b|` +
		`\b` + genericKinds + ` (?:memory )?(?:ran |runs |has run |is |was )?out of memory\b|` +
		`\b` + genericMemory + ` (?:is |was |has been )?exhausted\b)|` +
		`(?P<driver>cuda_error_out_of_memory|hip_error_outofmemory|hiperroroutofmemory|cudaerrormemoryallocation)|` +
		`(?P<bare>\b(?:ran |run |runs )?out of memory\b)`)

// The memory kinds whose running out is XLA's: "device memory", "HBM", not "GPU quota" or "host resources".
const (
	genericKinds  = `(?:device|gpu|tpu|accelerator|hbm|vram|host|pinned host|pinned)`
	genericMemory = `(?:(?:device|gpu|tpu|accelerator|host|pinned host|pinned)(?: hbm)? memory|(?:device |gpu |tpu )?(?:hbm|vram)(?: memory)?)`
)

// GenericCues let the statements through MayContain when no status stands around them. Each is a word,
// whitespace and the key's word, so a hit on an innocent "allocating" mostly stops at the word before it.
var GenericCues = []logtext.Cue{
	{Text: "ailed to allocate"},  // Failed to, failed to
	{Text: "able to allocate"},   // Unable to, unable to, not able to
	{Text: "memory to allocate"}, // not enough memory to, insufficient memory to
	{Text: "not allocate"},       // could not, cannot
	{Text: "n't allocate"},       // couldn't, can't
	{Text: "when allocating"},
	{Text: "while allocating"},
	{Text: "rror allocating"},   // Error allocating
	{Text: "memory allocating"}, // Out of memory allocating
	// "allocation of 1.00GiB failed": the size's unit is the cue.
	{Text: "allocation of", SizeAfter: true},
}

// genericSize is a size with a byte unit (not "allocate 3 more workers"), its exact companion when one follows.
var genericSize = regexp.MustCompile(`(?:^|[\s(=:])(?P<n>\d+(?:,\d{3})*(?:\.\d+)?)(?P<u> ?bytes?\b| ?[KMGTPE]i?B\b|[KMGTPE]\b|B\b)` +
	`(?: \((?:rounded to )?(?P<exact>\d+)(?: ?bytes|B)?\))?`)

// Labels that mark a size as what was free or the total, not the request.
var (
	genericFree  = regexp.MustCompile(`(?i)(?:\bfree(?: memory)?[:=]? ?|\bavailable[:=]? )(?P<n>\d+(?:,\d{3})*(?:\.\d+)?(?: ?bytes\b| ?[KMGTPE]i?B\b|[KMGTPE]\b|B\b)?)|(?P<m>\d+(?:,\d{3})*(?:\.\d+)?(?: ?bytes| ?[KMGTPE]i?B|[KMGTPE]|B)?) (?:bytes )?(?:free|available)\b`)
	genericTotal = regexp.MustCompile(`(?i)(?:\btotal(?: memory)?[:=]? ?|\bcapacity[:=]? )(?P<n>\d+(?:,\d{3})*(?:\.\d+)?(?: ?bytes\b| ?[KMGTPE]i?B\b|[KMGTPE]\b|B\b)?)|(?P<m>\d+(?:,\d{3})*(?:\.\d+)?(?: ?bytes| ?[KMGTPE]i?B|[KMGTPE]|B)?) (?:bytes )?total\b`)
)

// genericContexts make a statement an error wherever it is logged ("INTERNAL: " starts str(e) of XlaRuntimeError).
var genericContexts = []string{"RESOURCE_EXHAUSTED", "Resource exhausted", "ResourceExhausted", "XlaRuntimeError", "JaxRuntimeError", "INTERNAL: "}

// GenericForeign are phrases of failures not XLA's that keep the layer out of the entry; each is needed by a
// negative (TestGenericGuardsAreNeeded).
var GenericForeign = []string{
	"NeuronCore",             // AWS Neuron's PJRT plugin: its own allocator and runtime
	"Cannot allocate memory", // strerror(ENOMEM): the host kernel refused the process
	"MemoryError",            // Python's and NumPy's host RAM of the process, not XLA's
	"Tried to allocate",      // PyTorch's CUDA caching allocator, not XLA's
	"bytes for file reading", // TSL's file systems reading a file into the process's RAM
}

// Candidate is a statement the layer accepts, read into R; At is where it starts, From and To its entry's span.
type Candidate struct {
	At, From, To int
	R            grammar.Report
}

// EachCandidate calls fn with each statement of flat the layer accepts, by its entry's level, until fn returns true.
func EachCandidate(flat string, entries *logtext.Entries, fn func(c *Candidate) bool) {
	// A cheap pass: every statement holds "alloc" or "memory" in some case.
	if !strings.Contains(flat, "lloc") && !strings.Contains(flat, "emory") && !strings.Contains(flat, "EMORY") {
		return
	}
	for k := range entries.Len() {
		from, to, level := entries.At(k, flat)
		if level == 'I' || level == 'W' || level == 'D' {
			continue
		}
		if eachEntryCandidate(flat[from:to], level, func(at int, r grammar.Report) bool {
			return fn(&Candidate{At: from + at, From: from, To: to, R: r})
		}) {
			return
		}
	}
}

// eachEntryCandidate is EachCandidate on one entry logged at level; it returns whether fn returned true.
func eachEntryCandidate(flat string, level byte, fn func(at int, r grammar.Report) bool) bool {
	if slices.ContainsFunc(GenericForeign, func(f string) bool { return strings.Contains(flat, f) }) {
		return false
	}
	lower := asciiLower(flat)
	xla := strings.Contains(lower, "xla") || strings.Contains(lower, "jax") || strings.Contains(lower, "pjrt")
	for _, loc := range genericStatement.FindAllStringSubmatchIndex(lower, 8) {
		if g, ok := readGenericStatement(flat, lower, loc, level, xla); ok && fn(loc[0], g) {
			return true
		}
	}
	return false
}

// readGenericStatement reads the statement at loc (a genericStatement match on lower) if the layer accepts it.
func readGenericStatement(flat, lower string, loc []int, level byte, xla bool) (grammar.Report, bool) {
	at, kind := loc[0], ""
	for g, name := range genericStatement.SubexpNames() {
		if name != "" && loc[2*g] >= 0 {
			kind = name
		}
	}
	errorContext := level == 'E' || level == 'F' || hasGenericContext(flat, at)
	if kind == "bare" && !xla && !internalMessageEnd(flat, at, loc[1]) || details.Guarded(flat, at) || !errorContext {
		return grammar.Report{}, false
	}
	sentence := cutSentence(flat[at:min(len(flat), at+300)])
	if strings.Contains(sentence, "freed_by_count") {
		return grammar.Report{}, false // the BFC allocator's retry, which its caller survives
	}
	r := grammar.Report{Family: FamilyGeneric, Code: grammar.CodeGeneric}
	if kind == "alloc" {
		clause := genericClause(flat, loc[1])
		if !readGenericRequest(&r, clause) && !genericKindWord.MatchString(asciiLower(clause)) {
			return grammar.Report{}, false // "failed to allocate the output tuple": neither a size nor memory
		}
		if strings.HasPrefix(lower[at:], "allocation of") && !strings.Contains(asciiLower(clause), "fail") {
			return grammar.Report{}, false // "allocation of 1.00GiB" must fail in the same clause
		}
	} else {
		readGenericRequest(&r, genericAllocClause(flat, at))
	}
	window := flat[at:min(len(flat), at+400)]
	r.Free = genericLabelled(genericFree, window)
	r.Capacity = genericLabelled(genericTotal, window)
	statement := lower[at:loc[1]]
	switch {
	case kind == "driver", strings.Contains(statement, "gpu"), strings.Contains(statement, "vram"):
		r.Backend = grammar.BackendGPU
	case strings.Contains(statement, "tpu"):
		r.Backend = grammar.BackendTPU
	default: // the failing sentence's own evidence first, the record's later (finish)
		before := flat[max(0, at-200):at]
		if i := strings.LastIndex(before, ". "); i >= 0 {
			before = before[i+2:]
		}
		r.Backend = details.EvidenceBackend(before + sentence)
	}
	if strings.Contains(lower[at:min(len(lower), at+120)], "host") {
		r.MemorySpace = "host"
	}
	if strings.Contains(lower[max(0, at-300):min(len(lower), at+200)], "compil") {
		r.Phase = grammar.PhaseCompile
	}
	return r, true
}

// internalMessageEnd reports whether the bare "out of memory" at flat[at:end] ends an INTERNAL status's message,
// as str(e) of an XlaRuntimeError prints it with no name of XLA left ("INTERNAL: Out of memory").
func internalMessageEnd(flat string, at, end int) bool {
	rest := strings.TrimLeft(flat[end:], ".")
	return (rest == "" || rest[0] == ' ' && strings.TrimSpace(rest) == "") && strings.Contains(flat[max(0, at-80):at], "INTERNAL: ")
}

func cutSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i]
	}
	return s
}

func hasGenericContext(flat string, at int) bool {
	w := flat[max(0, at-600):min(len(flat), at+300)]
	return slices.ContainsFunc(genericContexts, func(c string) bool { return strings.Contains(w, c) })
}

// genericClause is the text after a statement up to its clause's end, at most 120 bytes.
func genericClause(flat string, from int) string {
	c := flat[from:min(len(flat), from+120)]
	for _, end := range []string{". ", "; ", ": ", " - "} {
		if i := strings.Index(c, end); i >= 0 {
			c = c[:i]
		}
	}
	return strings.TrimSuffix(c, ".")
}

// genericAllocClause is the clause after an "allocat..." word in the sentence at at ("" if none).
func genericAllocClause(flat string, at int) string {
	s := cutSentence(flat[at:min(len(flat), at+200)])
	i := strings.Index(asciiLower(s), "allocat")
	if i < 0 {
		return ""
	}
	j := i
	for j < len(s) && logheader.IsWordByte(s[j]) {
		j++
	}
	return genericClause(s, j)
}

func readGenericRequest(r *grammar.Report, clause string) bool {
	m := genericSize.FindStringSubmatch(clause)
	if m == nil {
		return false
	}
	r.Requested = grammar.Exact(m[1]+strings.TrimSpace(m[2]), m[3])
	return r.Requested.Known
}

// genericKindWord names the memory an allocation was for: a unit of hardware alone ("allocate a GPU") is a
// scheduler's failure, not memory.
var genericKindWord = regexp.MustCompile(`\b(?:memory|hbm|vram|buffer|workspace|work area)\b`)

func genericLabelled(re *regexp.Regexp, s string) grammar.Size {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return grammar.Size{}
	}
	tok := m[1] + m[2]
	tok = strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(tok, "bytes"), " "), " ", "")
	return grammar.ParseSizeToken(tok)
}

// asciiLower lower-cases ASCII letters only, so offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
