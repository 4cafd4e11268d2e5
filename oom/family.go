// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strings"

// A message family is one message format XLA (or a runtime under it) prints
// when memory runs out. Each family is one self-contained entry: how to find
// it (anchor, expr), what it means (kind, code, phase, backend), what it
// yields (the expression's named groups), how MayContain lets it through
// (cues) and how it changes the advice (advice). docs/message-formats.md is
// generated from these entries.
//
// Adding a family: add an entry to a group of a families_<group>.go file
// (families.go lists the groups in matching order), add a real fixture to
// fixtures_test.go, run `make generate` and `make test` (CONTRIBUTING.md has
// a worked example). Memory-pressure warnings have their own entry type,
// warningFamily.
type family struct {
	// id names the family in Report.Family, the tests and the docs:
	// backend-phase-what, e.g. "tpu-runtime-buffer".
	id string
	// summary is one line for the docs: what the message says happened.
	summary string
	kind    familyKind
	code    string // default code; a code printed in the text wins
	phase   string // PhaseCompile or PhaseRuntime
	backend string // the backend the message itself proves, "" if it does not
	// category, when set, refines the code's catalog category
	// (xla.error.category) with what failed, for failures outside XLA's
	// catalog ("GPU Driver: Kernel Launch Out of Memory"); the code and its
	// name stay the catalog's, so counts by code are unchanged.
	category string

	// anchor is a literal piece of the message, searched with strings.Index;
	// the expression runs only around it. Pick its rarest stable words.
	anchor string
	// expr is the RE2 expression for the whole message, run on flattened
	// text (see flatten: headers stripped, whitespace runs turned into one
	// space). The anchor must appear in it as literal text outside any group;
	// how far before the anchor the message starts is computed from expr.
	// Named groups carry what the message yields; the standard names fill
	// Report fields directly (see readStandardGroups): the sizes of
	// sizeMeanings; space: MemorySpace; device: Device; instruction:
	// Instruction. Other names are read by the entry's read function.
	expr string
	// span is how far past the anchor a match may reach (0: defaultSpan).
	span int
	// read, when set, fills what the standard groups cannot (derived codes,
	// sums, backends from allocator names); false rejects the match.
	read func(r *Report, m match) bool
	// cues are the phrases of this message that let it through MayContain
	// when it is printed without a status (RESOURCE_EXHAUSTED...), see
	// prefilter.go. Nil when the message is always printed as a status.
	cues []cue
	// advice is how this family changes its code's advice (remediation.go).
	advice adviceTraits
	// example is a real message of this family, verbatim from a fixture of
	// fixtures_test.go (checked by TestFamilyExamples); the docs show it.
	example string

	pattern // compiled from anchor and expr by newRecognizer
}

// familyKind says what a match of a family means.
type familyKind int

const (
	// fatal: a returned status, what the program fails with.
	fatal familyKind = iota + 1
	// logOnly: an allocator or driver log line. It is the failure only when
	// the record holds no status, and otherwise lends its details to it.
	logOnly
)

func (k familyKind) String() string {
	switch k {
	case fatal:
		return "fatal"
	case logOnly:
		return "log-only"
	}
	return "unknown"
}

// warningFamily is one memory-pressure warning format (warning.go): a line
// in which XLA, an allocator or the driver says memory is short while the
// program goes on. It never makes a record an OOM and has no error code;
// RecognizeWarning reads it into a Warning. Its fields mean what family's
// fields of the same name mean.
type warningFamily struct {
	id      string
	summary string
	// kind is the xla.memory.warning kind (one of the Warning* constants).
	kind string
	// attempt: an allocator's refused request that the allocator may
	// recover from (families_attempts.go). In a record with a failure it is
	// counted (Report.Attempts) and lends no size but its exact byte count
	// for the very request that failed; without one it is a warning, and the
	// last-resort layer never reads its entry as a failure.
	attempt bool
	// raised, for an attempt, is the id of the failure family its words
	// are read as when a status XLA's stack raised carries them
	// (speakers.go); "" leaves such a status to the last-resort layer.
	raised  string
	phase   string
	backend string
	anchor  string
	expr    string
	span    int
	read    func(r *Report, m match) bool
	cues    []cue
	example string

	pattern // compiled from anchor and expr by newRecognizer
}

// familyCodeOnly is Report.Family for a catalog OOM code printed without a
// readable message (e.g. a truncated "RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:").
const familyCodeOnly = "code-only"

// adviceTraits is how a family refines the advice of its code. Every field is
// optional; the advice tables (remediation*.go) place them: lead and note
// as leadRow and noteRow, the flags in the rows' conditions.
type adviceTraits struct {
	// own, when set, replaces the code's advice: the failure's fixes are
	// not XLA's (a TensorFlow op, the GPU driver outside XLA's pool).
	own func(r *Report) []string
	// lead returns a first step, ahead of the code's own advice ("" for none).
	// For E0007 it follows the host-memory check.
	lead func(r *Report) string
	// note is a step after the code's sizing advice (E1000, E0007) or after
	// the code's own advice (the other codes).
	note string
	// hostRAM: the host (not a device) ran out of memory: CPU advice only.
	hostRAM bool
	// suggestAsyncAllocator: an allocator line whose cause is unknown; name
	// the async allocator in case memory is fragmented.
	suggestAsyncAllocator bool
	// The action kinds (actions.go) of own's first step, of lead and of note.
	ownAction              func(r *Report) string
	leadAction, noteAction string
}

// sizeMeanings are the standard size groups and what each must mean: the
// connector turns them into xla.oom.pressure (how far demand went past what
// was there: 1 or more for a failure) and xla.oom.shortfall.size (the bytes
// that were missing), so a group used for another meaning gives wrong
// figures. Pressure is used / capacity, else requested / free, else
// requested / capacity; shortfall is exceeded, else used - capacity, else
// requested - free. Reserved, reservable and pool_limit feed neither.
var sizeMeanings = []struct{ group, meaning string }{
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

// plainSizeGroups are the standard groups that hold a size read as printed,
// with the Report field each fills. "requested" is not one: it also reads
// its exact companion, requested_exact.
var plainSizeGroups = map[string]func(*Report) *Size{
	"free":       func(r *Report) *Size { return &r.Free },
	"used":       func(r *Report) *Size { return &r.Used },
	"capacity":   func(r *Report) *Size { return &r.Capacity },
	"exceeded":   func(r *Report) *Size { return &r.Exceeded },
	"reserved":   func(r *Report) *Size { return &r.Reserved },
	"reservable": func(r *Report) *Size { return &r.Reservable },
	"pool_limit": func(r *Report) *Size { return &r.PoolLimit },
}

// readStandardGroups fills r from the named groups whose names are Report
// fields.
func readStandardGroups(r *Report, m match) {
	for _, g := range m.pattern.groups {
		v := m.submatch(g.index)
		if isSizeGroup(g.name) && cutAtEnd(m, g.index) {
			v = "" // the text stops inside this number: never guess its value
		}
		if field, ok := plainSizeGroups[g.name]; ok {
			*field(r) = parseSizeToken(v)
			continue
		}
		switch g.name {
		case "requested":
			r.Requested = exact(v, m.group("requested_exact"))
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

// requestedToken is the requested size as printed, exact figure first: a
// rounded one can then take the exact figure another message of the record
// prints for the same allocation.
func requestedToken(m match) string {
	if t := m.group("requested_exact"); t != "" {
		return t
	}
	return m.group("requested")
}

// yields lists what a family's message yields (its named groups), for the docs.
func (p *pattern) yields() []string {
	out := make([]string, 0, len(p.groups))
	for _, g := range p.groups {
		out = append(out, g.name)
	}
	return out
}
