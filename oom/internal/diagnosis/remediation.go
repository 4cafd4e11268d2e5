// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package diagnosis turns a recognised failure into its catalog names, cause, advice, retry verdict and fit
// fraction, and gives warnings' advice.
package diagnosis

import (
	"slices"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Advice is read off tables of rows: every row whose condition holds adds its step. The wording is ours; the
// facts come from the OpenXLA error pages, the OOM debugging guide and JAX's GPU memory allocation notes.

// AdviceCase is what a row reads: the report, its flattened text and the matched family's traits.
type AdviceCase struct {
	R      *grammar.Report
	Flat   string
	Traits grammar.AdviceTraits
}

// AdviceRow is one step of advice and the condition that calls for it.
type AdviceRow struct {
	Name string // short, unique within its table
	When func(c AdviceCase) bool
	Say  func(c AdviceCase) string
	// SayEach, used instead of Say, appends one step per item (e.g. per padded allocation).
	SayEach func(c AdviceCase, a grammar.Advice) grammar.Advice
	// Action is the kind of the step; ActionOf, when set, reads it instead.
	Action   string
	ActionOf func(c AdviceCase) string
}

// AdviceTable is rows in the order they are tried and their steps given.
type AdviceTable []AdviceRow

// adviceSeen, when not nil, is told each row that gave steps (for tests).
type adviceSeen func(table string, row *AdviceRow, steps []string)

// Walk returns the steps of every row of t whose condition holds, rendered for c.R.Framework.
func (t AdviceTable) Walk(name string, c AdviceCase, seen adviceSeen) grammar.Advice {
	return render(t.sources(name, c, seen), c.R.Framework)
}

// sources is Walk's steps with their knobs as references; seen is told the rendered steps.
func (t AdviceTable) sources(name string, c AdviceCase, seen adviceSeen) grammar.Advice {
	var a grammar.Advice
	for i := range t {
		row := &t[i]
		if !row.When(c) {
			continue
		}
		n := len(a)
		if row.SayEach != nil {
			a = row.SayEach(c, a)
		} else {
			a = append(a, row.Say(c))
		}
		if seen != nil {
			seen(name, row, render(a[n:], c.R.Framework))
		}
	}
	return a
}

// CodeAdvice picks the table for a report: the first row whose condition holds; the last takes every other code.
var CodeAdvice = []struct {
	Name  string
	When  func(c AdviceCase) bool
	Table AdviceTable
}{
	{"E1000 program does not fit", hasCode(grammar.CodeHbm), compileHbmAdvice},
	{"E0100 runtime buffer", hasCode(grammar.CodeBuffer), runtimeBufferAdvice},
	{"E0101 program load", hasCode(grammar.CodeProgram), programLoadAdvice},
	{"E1001 scoped VMEM", hasCode(grammar.CodeVmem), scopedVmemAdvice},
	{"E3000 SparseCore", hasCode(grammar.CodeSparseCore), sparseCoreAdvice},
	{"host RAM", hostRAM, hostRAMAdvice},
	{"pinned host memory", isHostSpace, pinnedHostAdvice},
	{"device memory", always, deviceAdvice},
}

// AdviseSeen returns the tables' ordered steps for c.R, rendered for c.R.Framework, telling seen which rows
// gave steps; a family's own advice (Traits.Own) is the caller's, adviseWithAction.
func AdviseSeen(c AdviceCase, seen adviceSeen) []string {
	return render(adviseSources(c, seen), c.R.Framework)
}

func adviseSources(c AdviceCase, seen adviceSeen) []string {
	var a grammar.Advice
	for _, t := range CodeAdvice {
		if t.When(c) {
			a = t.Table.sources(t.Name, c, seen)
			break
		}
	}
	if b := &c.R.Breakdown; len(b.Allocations) == 0 && !b.Total.Known && !b.AvailableAfter.Known {
		return a // no breakdown was read
	}
	// The breakdown's numbers come right after the headline's own.
	return slices.Insert(a, min(1, len(a)), BreakdownAdvice.sources("breakdown", c, seen)...)
}

func always(AdviceCase) bool { return true }

func hasCode(code string) func(c AdviceCase) bool {
	return func(c AdviceCase) bool { return c.R.Code == code }
}

func fragmented(c AdviceCase) bool { return c.R.Cause == grammar.CauseFragmentation }
func exhausted(c AdviceCase) bool  { return c.R.Cause == grammar.CauseExhaustion }

func causeNotKnown(c AdviceCase) bool { return !fragmented(c) && !exhausted(c) }

func larger(a, b grammar.Size) bool { return a.Known && b.Known && a.Bytes > b.Bytes }

func sayConst(s string) func(AdviceCase) string {
	prerender(s)
	return func(AdviceCase) string { return s }
}

// steps is a row giving texts, in order, whenever when holds; action is the first one's kind.
func steps(name, action string, when func(AdviceCase) bool, texts ...string) AdviceRow {
	for _, s := range texts {
		prerender(s)
	}
	return AdviceRow{Name: name, Action: action, When: when,
		SayEach: func(_ AdviceCase, a grammar.Advice) grammar.Advice { return append(a, texts...) }}
}

func flatHas(s string) func(c AdviceCase) bool {
	return func(c AdviceCase) bool { return strings.Contains(c.Flat, s) }
}

func isHostSpace(c AdviceCase) bool { return c.R.MemorySpace == "host" }

// familyLead is the matching family's first step ("" for none).
func familyLead(c AdviceCase) string {
	if c.Traits.Lead == nil {
		return ""
	}
	return KnobsOf(c.Traits.Lead(c.R))
}

// LeadRow and NoteRow place the matching family's lead step and note.
var (
	LeadRow = AdviceRow{Name: "family's lead step",
		When:     func(c AdviceCase) bool { return familyLead(c) != "" },
		Say:      familyLead,
		ActionOf: func(c AdviceCase) string { return c.Traits.LeadAction }}
	NoteRow = AdviceRow{Name: "family's note",
		When:     func(c AdviceCase) bool { return c.Traits.Note != "" },
		Say:      func(c AdviceCase) string { return KnobsOf(c.Traits.Note) },
		ActionOf: func(c AdviceCase) string { return c.Traits.NoteAction }}
)

// FmtRatio formats a ratio for advice ("1.24×").
func FmtRatio(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) + "×" }

// freeNote is "; only X is free" when the free memory is known.
func freeNote(r *grammar.Report) string {
	if !r.Free.Known {
		return ""
	}
	return "; only " + grammar.HumanSize(r.Free) + " is free"
}

// Finish derives what the matched fields imply: catalog names, backend, cause and remediation.
func Finish(r *grammar.Report, flat string, traits grammar.AdviceTraits) {
	e, _ := grammar.LookupCode(r.Code)
	r.Code, r.Name, r.Category, r.DocURL = e.Code, e.Name, e.Category, e.DocURL
	if e.Phase != "" {
		r.Phase = e.Phase
	}
	if r.Phase == "" {
		r.Phase = grammar.PhaseRuntime
	}
	if r.MemorySpace == "" && strings.Contains(r.Device, "_HBM") {
		r.MemorySpace = "hbm"
	}
	if r.Backend == "" {
		r.Backend = details.EvidenceBackend(flat)
	}
	if r.Cause == "" && r.Requested.Known && r.Free.Known { // the allocator's own summary may have told already
		if r.Free.Bytes >= r.Requested.Bytes {
			r.Cause = grammar.CauseFragmentation
		} else {
			r.Cause = grammar.CauseExhaustion
		}
	}
	if r.Framework == "" { // a caller that read more of the record may have set it
		r.Framework = grammar.FrameworkOf(flat)
	}
	r.AdviceSource, r.Action = adviseWithAction(r, flat, traits)
	r.Remediation = r.AdviceSource
	if slices.ContainsFunc(r.AdviceSource, grammar.HasKnob) {
		r.Remediation = render(r.AdviceSource, r.Framework)
	}
	r.Retry = Judge(r, Facts{}).Verdict
	r.FitFraction = fitFraction(r)
}

// fitFraction is capacity / demand where demand is the whole per-device one and larger (0 otherwise), a scoped
// VMEM request over its limit too: the inverse of the advice's "cut the batch by about X".
func fitFraction(r *grammar.Report) float64 {
	var x float64
	switch {
	case r.Code == grammar.CodeHbm:
		x = compileHbmRatio(AdviceCase{R: r})
	case requestOverDevice(retryCase{r: r}):
		x = grammar.Ratio(r.Requested, r.Capacity)
	case requestOverPool(retryCase{r: r}):
		x = grammar.Ratio(r.Requested, r.PoolLimit)
	}
	if x <= 1 {
		return 0
	}
	return 1 / x
}

// ActionOfRow is the kind of the step row gives for c.
func ActionOfRow(row *AdviceRow, c AdviceCase) string {
	if row.ActionOf != nil {
		return row.ActionOf(c)
	}
	return row.Action
}

// adviseWithAction returns the advice's sources (knobs as references) and the kind of its first step.
func adviseWithAction(r *grammar.Report, flat string, traits grammar.AdviceTraits) ([]string, string) {
	c := AdviceCase{R: r, Flat: flat, Traits: traits}
	if traits.Own != nil {
		own, copied := traits.Own(r), false
		for i, s := range own {
			if k := KnobsOf(s); k != s {
				if !copied { // a family may return a slice it keeps
					own, copied = slices.Clone(own), true
				}
				own[i] = k
			}
		}
		if traits.OwnAction == nil { // every family sets it (TestEveryAdviceHasAnAction)
			return own, grammar.ActionInvestigate
		}
		return own, traits.OwnAction(r)
	}
	var first *AdviceRow
	steps := adviseSources(c, func(_ string, row *AdviceRow, given []string) {
		if first == nil && len(given) > 0 {
			first = row
		}
	})
	if first == nil {
		return steps, grammar.ActionInvestigate
	}
	return steps, ActionOfRow(first, c)
}

// GenericAction is the kind of a last-resort finding's first step: its first row ("what failed") always holds.
func GenericAction(*grammar.Report) string { return GenericAdviceTable[0].Action }

// GenericAdvice is the advice of a last-resort finding, its knobs as references (Finish renders them).
func GenericAdvice(r *grammar.Report) []string {
	return GenericAdviceTable.sources("generic", AdviceCase{R: r}, nil)
}

// GenericAdviceTable is the last-resort finding's advice.
var GenericAdviceTable = AdviceTable{
	{Name: "what failed", Action: grammar.ActionInvestigate, When: always, Say: func(c AdviceCase) string {
		r := c.R
		s := "An allocation of " + lastResortMemory(r) + " failed"
		if r.Requested.Known {
			s += " (" + grammar.HumanSize(r.Requested) + " requested"
			if r.Free.Known {
				s += ", " + grammar.HumanSize(r.Free) + " free"
			}
			s += ")"
		}
		return s + ". The message is not one of the formats xla_oom knows (family \"generic\"), so its cause and its fixes are not read from it: check what holds memory on the device when it failed (" + knobLiveArrays + "the allocator's dump, nvidia-smi or the TPU runtime's memory profile)."
	}},
	{Name: "host memory", Action: grammar.ActionReduceHostMemory, When: isHostSpace,
		Say: sayConst("Host memory backs transfers and host offload: transfer or offload less at once, and check the memory limit of the process (container or cgroup).")},
	{Name: "device memory", Action: grammar.ActionShrinkFootprint, When: func(c AdviceCase) bool { return !isHostSpace(c) },
		Say: sayConst("Reduce the per-device footprint: a smaller batch or sequence length, " + knobRemat + " on large blocks, " + knobLowPrecision +
			" for large tensors" + knobDonateInList + ", or shard over more devices.")},
	{Name: "report the message", Action: grammar.ActionInvestigate, When: always,
		Say: sayConst("Report the message (with sizes and names scrubbed as you need) to the xla_oom project, so that it becomes a known family with exact fields and advice.")},
}

func lastResortMemory(r *grammar.Report) string {
	switch {
	case r.MemorySpace == "host":
		return "host memory"
	case r.Backend == grammar.BackendGPU:
		return "GPU memory"
	case r.Backend == grammar.BackendTPU:
		return "TPU memory"
	}
	return "memory"
}

// hostLimitVar sizes XLA's GPU client's pinned host pool (xla_gpu_host_bfc) in GiB: 64 by default, 16 when
// preallocated; XLA_PYTHON_CLIENT_MEM_FRACTION does not touch it.
const hostLimitVar = "XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB"

// Pinned host memory for a GPU: no GPU setting helps; where XLA's host pool failed, hostLimitVar is the limit.
var pinnedHostAdvice = AdviceTable{
	LeadRow,
	NoteRow,
	{Name: "larger than the host pool", Action: grammar.ActionSetMemoryLimit, When: func(c AdviceCase) bool { return namesHostPool(c) && larger(c.R.Requested, c.R.PoolLimit) }, Say: func(c AdviceCase) string {
		r := c.R
		return "The request (" + grammar.HumanSize(r.Requested) + ") is larger than XLA's whole pinned host memory pool (pool limit " + grammar.HumanSize(r.PoolLimit) +
			"), so freeing other host buffers cannot make room: " + hostPoolSetting(r) + "."
	}},
	{Name: "host pool full", Action: grammar.ActionSetMemoryLimit, When: func(c AdviceCase) bool { return namesHostPool(c) && !larger(c.R.Requested, c.R.PoolLimit) }, Say: func(c AdviceCase) string {
		what := "the request"
		if c.R.Requested.Known {
			what += " (" + grammar.HumanSize(c.R.Requested) + ")"
		}
		return "XLA's pinned host memory pool could not hold " + what + ": " + hostPoolSetting(c.R) + "."
	}},
	{Name: "transfer less", Action: grammar.ActionReduceHostMemory, When: always,
		Say: sayConst("This is pinned host memory used for transfers and host offload: transfer or offload less at once, or raise the host memory available to the process.")},
}

func namesHostPool(c AdviceCase) bool {
	return strings.Contains(c.Flat, "xla_gpu_host_bfc") || strings.Contains(c.Flat, hostLimitVar)
}

func hostPoolSetting(r *grammar.Report) string {
	if gib := hostPoolNeedGiB(r); gib > 0 {
		return "set " + hostLimitVar + " to at least " + strconv.FormatInt(gib, 10) +
			" (GiB; default 64, 16 when the pool is preallocated) if the host has that much RAM to pin"
	}
	return "raise " + hostLimitVar + " (GiB; default 64, 16 when the pool is preallocated) if the host has the RAM to pin"
}

// hostPoolNeedGiB is the smallest pool in whole GiB holding the request and what the pool held (0: unknown).
func hostPoolNeedGiB(r *grammar.Report) int64 {
	if !r.Requested.Known {
		return 0
	}
	need := r.Requested.Bytes
	if r.PoolLimit.Known && r.Free.Known && r.Free.Bytes <= r.PoolLimit.Bytes {
		need += r.PoolLimit.Bytes - r.Free.Bytes
	}
	return (need + 1<<30 - 1) >> 30
}
