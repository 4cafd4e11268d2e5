// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package generic

import (
	"regexp"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// FamilyGeneric is Report.Family of a memory failure that no family knows,
// tagged by the last-resort layer: an error that says an allocation of a
// size failed, or that device (GPU, TPU, accelerator, HBM) or host memory
// ran out. Its code is the catalog's generic E0007; the sizes are whatever
// the failing sentence states.
const FamilyGeneric = "generic"

// The last-resort layer runs only when no family and no catalog code
// matched. A false alarm costs more than a miss, so it needs two things in
// one log entry (a header line and the lines that continue it):
//
//   - a statement: a failure verb before "allocate" with a size or a memory
//     kind in the same clause ("Failed to allocate 1.00GiB (1073741824
//     bytes) from the scratch arena", "failed to allocate device memory"), an
//     "allocation of SIZE failed", or memory of a named kind that ran out
//     ("out of device memory", "TPU ran out of memory", a driver's
//     out-of-memory error name); a bare "out of memory" counts only where
//     the entry names XLA, JAX or PjRt, or where it ends an INTERNAL
//     status's message (str(e) of an XlaRuntimeError printed alone);
//   - an error context: the entry is logged at ERROR or FATAL, or the
//     statement stands near a RESOURCE_EXHAUSTED or INTERNAL status or an
//     XLA exception (XlaRuntimeError, JaxRuntimeError, TensorFlow's
//     ResourceExhaustedError).
//
// A statement on an INFO, WARNING or DEBUG line is never a failure (XLA logs
// its survivable retries there), and one behind a family guard (guarded) or
// in an entry that names another system's memory (genericForeign) is left
// alone.

// genericStatement finds the statements, on ASCII-lower-cased flattened text.
// Group "alloc" marks an allocation clause (its size is the request), "kind"
// a memory kind that ran out, "bare" a bare "out of memory", "driver" a GPU
// driver's out-of-memory error name.
var genericStatement = regexp.MustCompile(
	`(?P<alloc>\b(?:failed to|fails to|fail to|unable to|could not|couldn't|cannot|can't|not able to) allocate\b|` +
		`\berror (?:while )?allocating\b|\b(?:not enough|insufficient) (?:[a-z]+ )?memory to allocate\b|\ballocation of\b)|` +
		`(?P<kind>\b(?:out of|ran out of|run out of|runs out of|insufficient|not enough) (?:free )?` + genericMemory + `\b|` +
		`\b` + genericKinds + ` (?:memory )?(?:ran |runs |has run |is |was )?out of memory\b|` +
		`\b` + genericMemory + ` (?:is |was |has been )?exhausted\b)|` +
		`(?P<driver>cuda_error_out_of_memory|hip_error_outofmemory|hiperroroutofmemory|cudaerrormemoryallocation)|` +
		`(?P<bare>\b(?:ran |run |runs )?out of memory\b)`)

// genericKinds are the memory kinds whose running out is an accelerator or
// XLA host-memory failure, and genericMemory names such memory: "device
// memory", "HBM", not "GPU quota" or "host resources".
const (
	genericKinds  = `(?:device|gpu|tpu|accelerator|hbm|vram|host|pinned host|pinned)`
	genericMemory = `(?:(?:device|gpu|tpu|accelerator|host|pinned host|pinned)(?: hbm)? memory|(?:device |gpu |tpu )?(?:hbm|vram)(?: memory)?)`
)

// GenericCues let the last-resort layer's statements through MayContain
// when no status stands around them (a bare log line, an exception's
// message printed alone): an allocation that failed, or memory that ran
// out while allocating. Each is a word, whitespace and the key's word
// ("allocat"), so that a hit on an innocent "allocating" mostly stops at
// the last byte of the word before it (prefilterScan.prevLast).
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

// genericSize is a size with a byte unit (a bare number is not a size here:
// "allocate 3 more workers"), its exact companion when one follows.
var genericSize = regexp.MustCompile(`(?:^|[\s(=:])(?P<n>\d+(?:,\d{3})*(?:\.\d+)?)(?P<u> ?bytes?\b| ?[KMGTPE]i?B\b|[KMGTPE]\b|B\b)` +
	`(?: \((?:rounded to )?(?P<exact>\d+)(?: ?bytes|B)?\))?`)

// Labels that mark a size as what was free or the total, not the request.
var (
	genericFree  = regexp.MustCompile(`(?i)(?:\bfree(?: memory)?[:=]? ?|\bavailable[:=]? )(?P<n>\d+(?:,\d{3})*(?:\.\d+)?(?: ?bytes\b| ?[KMGTPE]i?B\b|[KMGTPE]\b|B\b)?)|(?P<m>\d+(?:,\d{3})*(?:\.\d+)?(?: ?bytes| ?[KMGTPE]i?B|[KMGTPE]|B)?) (?:bytes )?(?:free|available)\b`)
	genericTotal = regexp.MustCompile(`(?i)(?:\btotal(?: memory)?[:=]? ?|\bcapacity[:=]? )(?P<n>\d+(?:,\d{3})*(?:\.\d+)?(?: ?bytes\b| ?[KMGTPE]i?B\b|[KMGTPE]\b|B\b)?)|(?P<m>\d+(?:,\d{3})*(?:\.\d+)?(?: ?bytes| ?[KMGTPE]i?B|[KMGTPE]|B)?) (?:bytes )?total\b`)
)

// genericContexts are the statuses and exceptions that make a statement an
// error wherever it is logged. "INTERNAL: " is the status that str(e) of an
// XlaRuntimeError starts with when a program prints the message alone.
var genericContexts = []string{"RESOURCE_EXHAUSTED", "Resource exhausted", "ResourceExhausted", "XlaRuntimeError", "JaxRuntimeError", "INTERNAL: "}

// GenericForeign are phrases of failures that are not XLA's: another
// runtime's allocator, the process's own RAM. Any of them in the entry keeps
// the last-resort layer out. Each one is needed by a negative of
// oom/negatives_test.go (TestGenericGuardsAreNeeded). Quotas, rate limits,
// files, disks, the Linux OOM killer, Kubernetes' OOMKilled and Triton's
// messages need none: they state no allocation failure in an error context
// and no device or host memory that ran out, or a retry at WARNING (their
// negatives are there too).
var GenericForeign = []string{
	"NeuronCore",             // AWS Neuron's PJRT plugin: its own allocator and runtime
	"Cannot allocate memory", // strerror(ENOMEM): the host kernel refused the process
	"MemoryError",            // Python's and NumPy's host RAM of the process, not XLA's
	"Tried to allocate",      // PyTorch's CUDA caching allocator, not XLA's
	"bytes for file reading", // TSL's file systems reading a file into the process's RAM
}

// Candidate is a statement the last-resort layer reads as a failure by its
// own rules, read into R; the verdict's table decides whether it is one
// (the face applies it, as to every other candidate). At is where the
// statement starts in the flattened text, From and To its log entry's span.
type Candidate struct {
	At, From, To int
	R            grammar.Report
}

// EachCandidate is the last-resort layer (see above): it calls fn with
// each statement of flat it accepts, entry by entry (so that each
// statement is judged by its own entry's level, entries as flatten recorded
// them), until fn returns true. Its callers have run MayContain
// (GenericCues are its statements' cues).
func EachCandidate(flat string, entries *logtext.Entries, fn func(c *Candidate) bool) {
	if !mayBeGeneric(flat) {
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

// mayBeGeneric is a cheap pass: every statement has "alloc", "memory" or
// "MEMORY"/"Memory" in some case.
func mayBeGeneric(text string) bool {
	return strings.Contains(text, "lloc") || strings.Contains(text, "emory") || strings.Contains(text, "EMORY")
}

// eachEntryCandidate calls fn with each statement of one flattened entry,
// logged at level, that the last-resort layer accepts, until fn returns
// true; it returns whether one did.
func eachEntryCandidate(flat string, level byte, fn func(at int, r grammar.Report) bool) bool {
	for _, f := range GenericForeign {
		if strings.Contains(flat, f) {
			return false
		}
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

// readGenericStatement reads the statement at loc (a genericStatement match
// on lower, the lower-cased flat) if the layer accepts it.
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
	if sentence := flat[at:min(len(flat), at+300)]; strings.Contains(cutSentence(sentence), "freed_by_count") {
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
		r.Backend = details.EvidenceBackend(before + cutSentence(flat[at:min(len(flat), at+300)]))
	}
	if strings.Contains(lower[at:min(len(lower), at+120)], "host") {
		r.MemorySpace = "host"
	}
	if strings.Contains(lower[max(0, at-300):min(len(lower), at+200)], "compil") {
		r.Phase = grammar.PhaseCompile
	}
	return r, true
}

// internalMessageEnd reports whether the bare "out of memory" at
// flat[at:end] ends an INTERNAL status's message: "INTERNAL: Out of
// memory", "INTERNAL: DNNL operation failed: out of memory" are what str(e)
// of an XlaRuntimeError prints, with no name of XLA left in the text.
func internalMessageEnd(flat string, at, end int) bool {
	rest := strings.TrimLeft(flat[end:], ".")
	if rest != "" && !strings.HasPrefix(rest, " ") {
		return false
	}
	return strings.Contains(flat[max(0, at-80):at], "INTERNAL: ") && (rest == "" || strings.TrimSpace(rest) == "")
}

// cutSentence is s up to its first sentence end.
func cutSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i]
	}
	return s
}

// hasGenericContext reports whether a status or an XLA exception stands
// within the message around at.
func hasGenericContext(flat string, at int) bool {
	w := flat[max(0, at-600):min(len(flat), at+300)]
	for _, c := range genericContexts {
		if strings.Contains(w, c) {
			return true
		}
	}
	return false
}

// genericClause is the text after a statement up to the end of its clause
// (a sentence end, a semicolon, a status separator), at most 120 bytes.
func genericClause(flat string, from int) string {
	c := flat[from:min(len(flat), from+120)]
	for _, end := range []string{". ", "; ", ": ", " - "} {
		if i := strings.Index(c, end); i >= 0 {
			c = c[:i]
		}
	}
	return strings.TrimSuffix(c, ".")
}

// genericAllocClause is the clause after an "allocat..." word in the sentence
// that starts at at, "" when there is none: "GPU out of memory allocating
// 1.00GiB" states its request.
func genericAllocClause(flat string, at int) string {
	s := flat[at:min(len(flat), at+200)]
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	i := strings.Index(asciiLower(s), "allocat")
	if i < 0 {
		return ""
	}
	j := i
	for j < len(s) && logtext.IsWordByte(s[j]) {
		j++
	}
	return genericClause(s, j)
}

// readGenericRequest sets r.Requested from the first size of clause.
func readGenericRequest(r *grammar.Report, clause string) bool {
	m := genericSize.FindStringSubmatch(clause)
	if m == nil {
		return false
	}
	r.Requested = grammar.Exact(m[1]+strings.TrimSpace(m[2]), m[3])
	return r.Requested.Known
}

// genericKindWord names the memory an allocation was for.
// A unit of hardware alone ("allocate a GPU", "allocate device 3", "TPU
// slice") is a scheduler's or a resource manager's failure, not memory.
var genericKindWord = regexp.MustCompile(`\b(?:memory|hbm|vram|buffer|workspace|work area)\b`)

// genericLabelled returns the first size re labels in s.
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
