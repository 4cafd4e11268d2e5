// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Family is a message family: one message format XLA (or a runtime under it) prints
// when memory runs out. Each family is one self-contained entry: how to find
// it (anchor, expr), what it means (kind, code, phase, backend), what it
// yields (the expression's named groups), how MayContain lets it through
// (cues) and how it changes the advice (advice). docs/message-formats.md is
// generated from these entries.
//
// Adding a family: add an entry to a group of a families/families_<group>.go file
// (families/families.go lists the groups in matching order), add a real fixture to
// oom/fixtures_test.go, run `make generate` and `make test` (CONTRIBUTING.md has
// a worked example). Memory-pressure warnings have their own entry type,
// warningFamily.
type Family struct {
	// ID names the family in Report.Family, the tests and the docs:
	// backend-phase-what, e.g. "tpu-runtime-buffer".
	ID string
	// Summary is one line for the docs: what the message says happened.
	Summary string
	Kind    FamilyKind
	Code    string // default code; a code printed in the text wins
	Phase   string // PhaseCompile or PhaseRuntime
	Backend string // the backend the message itself proves, "" if it does not
	// category, when set, refines the code's catalog category
	// (xla.error.category) with what failed, for failures outside XLA's
	// catalog ("GPU Driver: Kernel Launch Out of Memory"); the code and its
	// name stay the catalog's, so counts by code are unchanged.
	Category string

	// Anchor is a literal piece of the message, searched with strings.Index;
	// the expression runs only around it. Pick its rarest stable words.
	Anchor string
	// Expr is the RE2 expression for the whole message, run on flattened
	// text (see flatten: headers stripped, whitespace runs turned into one
	// space). The anchor must appear in it as literal text outside any group;
	// how far before the anchor the message starts is computed from expr.
	// Named groups carry what the message yields; the standard names fill
	// Report fields directly (see readStandardGroups): the sizes of
	// sizeMeanings; space: MemorySpace; device: Device; instruction:
	// Instruction. Other names are read by the entry's read function.
	Expr string
	// Span is how far past the anchor a match may reach (0: defaultSpan).
	Span int
	// read, when set, fills what the standard groups cannot (derived codes,
	// sums, backends from allocator names); false rejects the match.
	Read func(r *Report, m Match) bool
	// Cues are the phrases of this message that let it through MayContain
	// when it is printed without a status (RESOURCE_EXHAUSTED...), see
	// logtext/prefilter.go. Nil when the message is always printed as a status.
	Cues []logtext.Cue
	// Advice is how this family changes its code's advice (diagnosis/remediation.go).
	Advice AdviceTraits
	// Example is a real message of this family, verbatim from a fixture of
	// oom/fixtures_test.go (checked by TestFamilyExamples); the docs show it.
	Example string

	Pattern // compiled from anchor and expr by newRecognizer
}

// FamilyKind says what a match of a family means.
type FamilyKind int

const (
	// Fatal is a returned status, what the program fails with.
	Fatal FamilyKind = iota + 1
	// LogOnly is an allocator or driver log line. It is the failure only when
	// the record holds no status, and otherwise lends its details to it.
	LogOnly
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

// WarningFamily is one memory-pressure warning format (oom/warning.go): a line
// in which XLA, an allocator or the driver says memory is short while the
// program goes on. It never makes a record an OOM and has no error code;
// RecognizeWarning reads it into a Warning. Its fields mean what family's
// fields of the same name mean.
type WarningFamily struct {
	ID      string
	Summary string
	// Kind is the xla.memory.warning kind (one of the Warning* constants).
	Kind string
	// Attempt: an allocator's refused request that the allocator may
	// recover from (families/families_attempts.go). In a record with a failure it is
	// counted (Report.Attempts) and lends no size but its exact byte count
	// for the very request that failed; without one it is a warning, and the
	// last-resort layer never reads its entry as a failure.
	Attempt bool
	// raised, for an attempt, is the id of the failure family its words
	// are read as when a status XLA's stack raised carries them
	// (oom/speakers.go); "" leaves such a status to the last-resort layer.
	Raised  string
	Phase   string
	Backend string
	Anchor  string
	Expr    string
	Span    int
	Read    func(r *Report, m Match) bool
	Cues    []logtext.Cue
	Example string

	Pattern // compiled from anchor and expr by newRecognizer
}

// FamilyCodeOnly is Report.Family for a catalog OOM code printed without a
// readable message (e.g. a truncated "RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:").
const FamilyCodeOnly = "code-only"

// AdviceTraits is how a family refines the advice of its code. Every field is
// optional; the advice tables (remediation*.go) place them: lead and note
// as leadRow and noteRow, the flags in the rows' conditions.
type AdviceTraits struct {
	// own, when set, replaces the code's advice: the failure's fixes are
	// not XLA's (a TensorFlow op, the GPU driver outside XLA's pool).
	Own func(r *Report) []string
	// Lead returns a first step, ahead of the code's own advice ("" for none).
	// For E0007 it follows the host-memory check.
	Lead func(r *Report) string
	// Note is a step after the code's sizing advice (E1000, E0007) or after
	// the code's own advice (the other codes).
	Note string
	// HostRAM: the host (not a device) ran out of memory: CPU advice only.
	HostRAM bool
	// SuggestAsyncAllocator: an allocator line whose cause is unknown; name
	// the async allocator in case memory is fragmented.
	SuggestAsyncAllocator bool
	// The action kinds (diagnosis/actions.go) of own's first step, of lead and of note.
	OwnAction              func(r *Report) string
	LeadAction, NoteAction string
}

// SizeMeanings are the standard size groups and what each must mean: the
// connector turns them into xla.oom.pressure (how far demand went past what
// was there: 1 or more for a failure) and xla.oom.shortfall.size (the bytes
// that were missing), so a group used for another meaning gives wrong
// figures. Pressure is used / capacity, else requested / free, else
// requested / capacity; shortfall is exceeded, else used - capacity, else
// requested - free. Reserved, reservable and pool_limit feed neither.
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

// PlainSizeGroups are the standard groups that hold a size read as printed,
// with the Report field each fills. "requested" is not one: it also reads
// its exact companion, requested_exact.
var PlainSizeGroups = map[string]func(*Report) *Size{
	"free":       func(r *Report) *Size { return &r.Free },
	"used":       func(r *Report) *Size { return &r.Used },
	"capacity":   func(r *Report) *Size { return &r.Capacity },
	"exceeded":   func(r *Report) *Size { return &r.Exceeded },
	"reserved":   func(r *Report) *Size { return &r.Reserved },
	"reservable": func(r *Report) *Size { return &r.Reservable },
	"pool_limit": func(r *Report) *Size { return &r.PoolLimit },
}

// ReadStandardGroups fills r from the named groups whose names are Report
// fields.
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

// RequestedToken is the requested size as printed, exact figure first: a
// rounded one can then take the exact figure another message of the record
// prints for the same allocation.
func RequestedToken(m Match) string {
	if t := m.Group("requested_exact"); t != "" {
		return t
	}
	return m.Group("requested")
}

// Yields lists what a family's message yields (its named groups), for the docs.
func (p *Pattern) Yields() []string {
	out := make([]string, 0, len(p.groups))
	for _, g := range p.groups {
		out = append(out, g.name)
	}
	return out
}
