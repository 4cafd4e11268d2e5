// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package grammar is what a message family is and what it yields: the entry types, an entry's expression run
// around its anchor, the sizes, the facts read (Report, breakdowns, warnings) and the OpenXLA catalog.
package grammar

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Family is one message format XLA (or a runtime under it) prints when memory runs out (CONTRIBUTING.md).
type Family struct {
	ID       string // Report.Family: backend-phase-what, e.g. "tpu-runtime-buffer"
	Summary  string // one line for the docs: what the message says happened
	Kind     FamilyKind
	Code     string // default code; a code printed in the text wins
	Phase    string // PhaseCompile or PhaseRuntime
	Backend  string // the backend the message itself proves, "" if it does not
	Category string // refines the code's catalog category for failures outside XLA's catalog

	Anchor string // a literal piece of the message, its rarest stable words: the expression runs only around it
	// Expr is the RE2 expression for the whole message on flattened text; the anchor is literal text outside
	// any group. Standard group names fill Report fields (ReadStandardGroups); Read reads the others.
	Expr    string
	Span    int                           // how far past the anchor a match may reach (0: defaultSpan)
	Read    func(r *Report, m Match) bool // fills what the standard groups cannot; false rejects the match
	Cues    []logtext.Cue                 // let the message through MayContain when printed without a status
	Advice  AdviceTraits                  // how this family changes its code's advice
	Example string                        // a real message, verbatim from a fixture (TestFamilyExamples)

	Pattern // compiled from Anchor and Expr by newRecognizer
}

// FamilyKind says what a match of a family means.
type FamilyKind int

// The family kinds.
const (
	Fatal   FamilyKind = iota + 1 // a returned status, what the program fails with
	LogOnly                       // an allocator or driver line: the failure only where no status is
)

func (k FamilyKind) String() string {
	switch k {
	case Fatal:
		return "fatal"
	case LogOnly:
		return "log-only"
	}
	return "unknown"
}

// WarningFamily is one memory-pressure warning format, never an OOM; its fields mean what Family's mean.
type WarningFamily struct {
	ID      string
	Summary string
	Kind    string // the xla.memory.warning kind (a Warning* constant)
	// Attempt: a refused request the allocator may recover from. With a failure it is counted
	// (Report.Attempts) and lends only its exact byte count, for the very request that failed.
	Attempt bool
	Raised  string // the failure family its words are read as inside a status XLA raised ("": the last-resort layer)
	Phase   string
	Backend string
	Anchor  string
	Expr    string
	Span    int
	Read    func(r *Report, m Match) bool
	Cues    []logtext.Cue
	Example string

	Pattern
}

// FamilyCodeOnly is Report.Family for a catalog OOM code printed without a readable message.
const FamilyCodeOnly = "code-only"

// AdviceTraits is how a family refines the advice of its code (diagnosis/remediation*.go); all optional.
type AdviceTraits struct {
	Own                   func(r *Report) []string // replaces the code's advice: the fixes are not XLA's
	Lead                  func(r *Report) string   // a first step ("" for none); for E0007 after the host-memory check
	Note                  string                   // a step after the code's sizing advice (E1000, E0007) or after its own advice
	HostRAM               bool                     // the host, not a device, ran out of memory: CPU advice only
	SuggestAsyncAllocator bool                     // an allocator line of unknown cause: name the async allocator against fragmentation
	// The action kinds of Own's first step, of Lead and of Note.
	OwnAction              func(r *Report) string
	LeadAction, NoteAction string
}

// SizeMeanings are the standard size groups and what each must mean: the connector derives
// xla.oom.pressure and xla.oom.shortfall.size from them.
var SizeMeanings = []struct{ Group, Meaning string }{
	{"requested", "the allocation or reservation that failed (\"allocate X\", \"Requires X\", a scoped \"size X\")"},
	{"requested_exact", "the exact bytes printed next to a rounded requested size (\"1.97GiB (rounded to 2110783744)\"); preferred to it"},
	{"free", "what the device (or its pool) had free when the request failed; a request above it is a shortfall"},
	{"used", "what the program needs or holds in total, compared with capacity (\"Used X of Y\"); only with a capacity it can exceed"},
	{"capacity", "the whole memory the demand is measured against: the device or memory space (\"of Y hbm\", \"Total memory\"), or a hard limit that the failed demand exceeded (a scoped VMEM limit)"},
	{"exceeded", "by how much the demand went past the capacity, when the message prints it (\"Exceeded hbm capacity by Z\")"},
	{"reserved", "program load: memory already reserved on the device (\"N reserved\")"},
	{"reservable", "program load: memory that could still be reserved (\"N reservable\")"},
	{"pool_limit", "the most an allocator may take from the device (an allocator's budget, e.g. XLA's share of the GPU); not the device's capacity. Map an allocator's budget here, never to capacity: against capacity, a pool that is half the GPU reads as pressure 0.5 for an actual OOM"},
}

// PlainSizeGroups are the standard size groups read as printed ("requested" also reads requested_exact).
var PlainSizeGroups = map[string]func(*Report) *Size{
	"free":       func(r *Report) *Size { return &r.Free },
	"used":       func(r *Report) *Size { return &r.Used },
	"capacity":   func(r *Report) *Size { return &r.Capacity },
	"exceeded":   func(r *Report) *Size { return &r.Exceeded },
	"reserved":   func(r *Report) *Size { return &r.Reserved },
	"reservable": func(r *Report) *Size { return &r.Reservable },
	"pool_limit": func(r *Report) *Size { return &r.PoolLimit },
}

// ReadStandardGroups fills r from m's standard groups.
func ReadStandardGroups(r *Report, m Match) {
	for _, g := range m.pattern.groups {
		v := m.submatch(g.index)
		if IsSizeGroup(g.name) && cutAtEnd(m, g.index) {
			v = "" // the text stops inside this number: never guess its value
		}
		if field, ok := PlainSizeGroups[g.name]; ok {
			*field(r) = ParseSizeToken(v)
			continue
		}
		switch g.name {
		case "requested":
			r.Requested = Exact(v, m.Group("requested_exact"))
		case "space":
			if v != "" {
				r.MemorySpace = strings.ToLower(v)
			}
		case "device":
			r.Device = v
		case "instruction":
			r.Instruction = v
		}
	}
}

// RequestedToken is the requested size as printed, exact figure first.
func RequestedToken(m Match) string {
	if t := m.Group("requested_exact"); t != "" {
		return t
	}
	return m.Group("requested")
}

// Yields lists the named groups of p, for the docs.
func (p *Pattern) Yields() []string {
	out := make([]string, 0, len(p.groups))
	for _, g := range p.groups {
		out = append(out, g.name)
	}
	return out
}
