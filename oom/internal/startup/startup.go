// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package startup reads what a process prints at start-up about its accelerators and memory pools (XLA/JAX,
// TensorFlow, the nvidia-smi table a job script prints) and the compiler's memory plan, so that a failure can
// be judged against the device it ran on. The formats and their versions are in docs/devices.md.
package startup

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Bounds of a Process: its size is fixed whatever the stream prints.
const (
	MaxDevices = 16  // ordinals 0..15; facts of higher ordinals are dropped
	MaxHolders = 3   // other processes kept per device
	maxText    = 128 // a model or holder name longer than this is cut
)

// Cues are what the processor's prefilter passes for Read, in its syntax (a space stands for a run of
// whitespace, '#' for a digit; each holds one of the prefilter's scan keys "R", "B" or "lloc"). A record
// holding one is handed to Read whole, so a line without a cue is read where its record holds one: TensorFlow's
// "Found device" block and the nvidia-smi table are one record each under the agent's rules. Lines no cue
// can pass are listed in docs/devices.md.
var Cues = []string{
	"BFCAllocator.",            // XLA's pool lines
	"AsyncAllocator.",          // XLA's CUDA async pool
	"allocator pa_budget",      // XLA's VMM budget
	"; Runtime: #",             // XLA's device line, 2026 on
	"B, Compute Capability",    // the device line before 2026, a name ending in GB ("NVIDIA A100-SXM4-40GB")
	"BM#, Compute Capability",  // ... in HBM3 ("NVIDIA H100 80GB HBM3")
	"BM#e, Compute Capability", // ... in HBM3e
	"B###, Compute Capability", // ... in B200, GB200
	"iB freeMemory:",           // TensorFlow 1.4-1.13's memory line
	"iB Free memory:",          // TensorFlow 0.5-1.3's, joined to its "Total memory:" line
	"MemoryBandwidth:",         // TensorFlow 2.1+ ("deviceMemoryBandwidth")
	"MB memory",                // TensorFlow's device line
	"Bus-Id",                   // the nvidia-smi table's column header: a table starts
	"MiB |",                    // its memory and process rows
	"BAR1-Usage",               // its MIG devices section
	"memory.total [MiB]",       // the CSV query's header
	"# MiB, #",                 // its rows
	"CUDA_VISIBLE_DEVICES",     // a job script's echo
}

// Phrases that route a line to its reader.
const (
	phXLA              = "XLA backend "
	phExecutor         = "StreamExecutor "
	phVMM              = "pa_budget for device "
	phFound            = "with properties:"
	phTotalMemory      = "totalMemory:"
	phDeviceMemorySize = "deviceMemorySize:"
	phTotalMemoryT1    = "Total memory:"
	phFreeMemoryT1     = "Free memory:"
	phTFCreated        = "MB memory"
	phSMIColumns       = "Bus-Id"
	phSMIBusID         = "00000000:"
	phSMIMiB           = "MiB |"
	phSMIMIG           = "BAR1-Usage"
	phSMIMIGSection    = "MIG devices:"
	phSMIMIGEnabled    = "Enabled |"
	phCSVHeader        = "memory.total [MiB]"
	phVisible          = "CUDA_VISIBLE_DEVICES"
	phSchedule         = "exceeds the base limit"
	phRemat            = "by rematerialization"
)

// Sources of a fact (Device's *Source fields).
const (
	SourceTensorFlow = "tensorflow"
	SourceNvidiaSMI  = "nvidia-smi"
	SourceModel      = "model"
	SourceXLA        = "xla" // the 2019 "reserving N out of M": the free memory, without a total
)

// Pool bases (Device.PoolBasis).
const (
	BasisShare       = "share"         // a configured share of the device's total
	BasisFreeAtStart = "free_at_start" // sized from the memory free when the process started
)

// Plan sources (Device.PlanSource).
const (
	PlanScheduler         = "scheduler"         // gpu_hlo_schedule.cc
	PlanRematerialization = "rematerialization" // hlo_rematerialization.cc
)

// Kinds of framework line: a second line of one kind for one ordinal starts a new process.
const (
	kindExecutor uint8 = 1 << iota
	kindPool
	kindTFFound
	kindTFCreated
)

// framework is what the framework printed of one device.
type framework struct {
	seen      uint8 // kinds read
	model     string
	capacity  grammar.Size
	free      grammar.Size
	freeTotal grammar.Size
	freeFrom  string
	pool      grammar.Size
	basis     string
}

// Process is what one process printed at start-up about its devices and memory pools, and the compiler's
// plan. Its size is fixed (MaxDevices, MaxHolders); the zero value is empty and ready.
type Process struct {
	dev       [MaxDevices]framework
	table     table // the nvidia-smi table printed before the framework started
	pending   table // a table printed after this process's framework lines: the next process's, or a monitor's
	visible   visible
	pendingVD visible
	reading   uint8 // the table whose rows the next lines belong to (an index, so a copied Process is whole)
	taken     bool  // table holds this process's table
	started   bool  // a framework line of this process was read
	ended     bool  // the process failed: the next start-up fact begins a new process
	tfFound   int8  // 1+ordinal of TensorFlow's last "Found device N": its memory lines follow
	tfRepeat  bool  // that line repeated one of this process: its memory lines tell whether a new one began
	plan      plan
	planStale bool // the plan belongs to the ended process: the next plan line replaces it
	processes int  // the processes begun after the first (Processes)
}

// Processes counts the processes begun after the first: a caller dates each new one's start.
func (p *Process) Processes() int { return p.processes }

// phrases are what readLine routes on: a text holding none has no fact (MayContain).
var phrases = [...]string{phXLA, phExecutor, phVMM, phFound, phTotalMemory, phDeviceMemorySize, phTotalMemoryT1,
	phFreeMemoryT1, phTFCreated, phSchedule, phRemat, phVisible, phSMIColumns, phSMIBusID, phSMIMiB, phSMIMIG,
	phSMIMIGSection, phSMIMIGEnabled, phCSVHeader, " MiB, "}

// Plan reports whether text holds one of the compiler's plan lines: the rematerialization line is also a
// memory-pressure warning, which its reader must see too.
func Plan(text string) bool {
	return strings.Contains(text, phRemat) || strings.Contains(text, phSchedule)
}

// MayContain reports whether text may hold a line Read takes: a record the prefilter passed for a cue is
// checked with it before a stream's Process is looked up.
func MayContain(text string) bool {
	for _, ph := range phrases {
		if strings.Contains(text, ph) {
			return true
		}
	}
	return false
}

const (
	readingNone uint8 = iota
	readingTable
	readingPending
)

type plan struct {
	peak, limit grammar.Size
	source      string
}

// Read takes one record's text (one line, or lines joined by '\n', with or without a log header) and
// reports whether it read a fact. A line holding none of the phrases read is skipped without allocating.
func (p *Process) Read(text string) bool {
	took := false
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if p.readLine(strings.TrimSuffix(line, "\r")) {
			took = true
		}
	}
	return took
}

func (p *Process) readLine(line string) bool {
	switch {
	case strings.Contains(line, phXLA):
		return p.readXLA(line)
	case strings.Contains(line, phExecutor):
		return p.readExecutor(line)
	case strings.Contains(line, phVMM):
		return p.readVMM(line)
	case strings.Contains(line, phFound):
		return p.readTFFound(line)
	case strings.Contains(line, phTotalMemory), strings.Contains(line, phDeviceMemorySize),
		strings.Contains(line, phTotalMemoryT1), strings.Contains(line, phFreeMemoryT1):
		return p.readTFMemory(line)
	case strings.Contains(line, phTFCreated):
		return p.readTFCreated(line)
	case strings.Contains(line, phSchedule):
		return p.readSchedule(line)
	case strings.Contains(line, phRemat):
		return p.readRemat(line)
	case strings.Contains(line, phVisible):
		return p.readVisible(line)
	case strings.Contains(line, phSMIColumns), strings.Contains(line, phSMIBusID),
		strings.Contains(line, phSMIMiB), strings.Contains(line, phSMIMIG),
		strings.Contains(line, phSMIMIGSection), strings.Contains(line, phSMIMIGEnabled),
		strings.Contains(line, phCSVHeader), strings.Contains(line, " MiB, "):
		return p.readSMI(line)
	}
	return false
}

// Ended marks that the process failed (its failure closed): the next start-up fact begins a new process.
// The facts stay readable until then.
func (p *Process) Ended() {
	p.ended = true
	p.planStale = true
}

// reset begins a new process. carry: a repeated framework line began it, and what the new process printed
// before that line is kept: the table and CUDA_VISIBLE_DEVICES printed after the old process's framework
// lines (a job script prints them before its program starts), and the device models (a device line naming
// the same model starts no process). It clears only what was written: a stream whose job prints its
// start-up lines again pays for the devices it names, not for the whole Process.
func (p *Process) reset(carry bool) {
	for i := range p.dev {
		if d := &p.dev[i]; d.seen != 0 || d.model != "" {
			model := d.model
			*d = framework{}
			if carry {
				d.model = model
			}
		}
	}
	switch {
	case carry && p.pending.used():
		p.table, p.taken = p.pending, true
	case p.table.used():
		p.table, p.taken = table{}, false
	default:
		p.taken = false
	}
	if p.pending.used() {
		p.pending = table{}
	}
	p.visible = visible{}
	if carry {
		p.visible = p.pendingVD
	}
	p.pendingVD = visible{}
	p.reading, p.started, p.ended, p.tfFound, p.tfRepeat = readingNone, false, false, 0, false
	p.plan, p.planStale = plan{}, false
	p.processes++
}

// frameworkLine is called before a framework line of kind for ordinal is taken: it begins a new process
// where the process ended or already read that kind for that ordinal, and closes any table being read.
// same reports that the line repeats what was read (TensorFlow prints its device line once per session).
func (p *Process) frameworkLine(ordinal int, kind uint8, same bool) {
	repeat := p.dev[ordinal].seen&kind != 0
	switch {
	case p.ended:
		p.reset(false)
	case repeat && !same:
		p.reset(true)
	case repeat:
		// The same line again may be the same process or the next one's first: the next line decides.
	default:
		// A table between this process's framework lines is a monitor's: never the memory others held.
		if p.pending.used() {
			p.pending = table{}
		}
		p.pendingVD = visible{}
	}
	p.reading = readingNone
	p.started = true
	p.tfRepeat = false
	p.dev[ordinal].seen |= kind
}

// ordinalOK bounds an ordinal read from a line.
func ordinalOK(n int) bool { return n >= 0 && n < MaxDevices }

// clip copies s (a record's text must not stay referenced), cut to maxText bytes.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxText {
		s = s[:maxText]
	}
	return strings.Clone(s)
}

// leadingInt reads the decimal digits that start s (at most 18) and the rest.
func leadingInt(s string) (n int64, rest string, ok bool) {
	i := 0
	for i < len(s) && i < 18 && s[i] >= '0' && s[i] <= '9' {
		n = n*10 + int64(s[i]-'0')
		i++
	}
	return n, s[i:], i > 0
}

// after returns what follows the first sep in s.
func after(s, sep string) (string, bool) {
	i := strings.Index(s, sep)
	if i < 0 {
		return "", false
	}
	return s[i+len(sep):], true
}
