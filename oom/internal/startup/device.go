// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Device is what is known of one device at start-up.
type Device struct {
	Model          string       // "NVIDIA A100-PCIE-40GB"
	Capacity       grammar.Size // the device's memory
	CapacitySource string       // SourceTensorFlow, SourceNvidiaSMI or SourceModel (an upper bound: ModelMemory)
	// Free is the memory free at start, read with FreeTotal from one source (TensorFlow's Found device line,
	// one nvidia-smi row); the 2019 XLA "reserving N out of M" gives Free alone (FreeSource SourceXLA).
	Free, FreeTotal grammar.Size
	FreeSource      string
	// FreeByPosition: nvidia-smi listed several GPUs and nothing named the ones the process saw: the row
	// taken is the one at the framework's ordinal, an assumption that WholeFree does not rest on.
	FreeByPosition bool
	Holders        []string     // other processes nvidia-smi listed on the device: "python3 (pid 4242) 58000 MiB"
	Pool           grammar.Size // the pool limit set at start
	PoolBasis      string       // BasisShare, BasisFreeAtStart or "" (no pool line)
	// PlanPeak over PlanLimit is the compiler's plan: the peak rematerialization could not reduce below its
	// limit, or the I/O bytes over the scheduler's base limit. The plan names no device: it is the process's.
	PlanPeak, PlanLimit grammar.Size
	PlanSource          string // PlanScheduler, PlanRematerialization or ""
}

// Device is what is known of device ordinal at start-up. ordinal < 0 (the failure did not say which
// device): the process's one device; where it knows several or none, only the plan (the process's).
func (p *Process) Device(ordinal int) Device {
	if ordinal < 0 {
		ordinal = p.onlyDevice()
	}
	if !ordinalOK(ordinal) {
		return Device{PlanPeak: p.plan.peak, PlanLimit: p.plan.limit, PlanSource: p.plan.source}
	}
	f := &p.dev[ordinal]
	d := Device{
		Model: f.model, Capacity: f.capacity, Pool: f.pool, PoolBasis: f.basis,
		Free: f.free, FreeTotal: f.freeTotal, FreeSource: f.freeFrom,
		PlanPeak: p.plan.peak, PlanLimit: p.plan.limit, PlanSource: p.plan.source,
	}
	if d.Capacity.Known {
		d.CapacitySource = SourceTensorFlow
	}
	if r, assumed := p.row(ordinal); r != nil && sameModel(d.Model, r.model) {
		if d.Model == "" {
			d.Model = r.model
		}
		if r.total > 0 {
			total := grammar.KnownSize(r.total << 20)
			if !d.Capacity.Known {
				d.Capacity, d.CapacitySource = total, SourceNvidiaSMI
			}
			if d.FreeTotal.Bytes == 0 { // TensorFlow's own pair is read later, at the process's start
				d.Free, d.FreeTotal = grammar.KnownSize((r.total-r.used)<<20), total
				d.FreeSource, d.FreeByPosition = SourceNvidiaSMI, assumed
			}
		}
		for i := range r.nHolders {
			d.Holders = append(d.Holders, r.holders[i])
		}
	}
	if !d.Capacity.Known {
		if c, ok := ModelMemory(d.Model); ok {
			d.Capacity, d.CapacitySource = c, SourceModel
		}
	}
	return d
}

// onlyDevice is the ordinal of the process's one device, or -1.
func (p *Process) onlyDevice() int {
	found := -1
	for i := range p.dev {
		if p.dev[i].seen != 0 {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	if found >= 0 || !p.taken {
		return found
	}
	n := p.table.n // nothing from the framework: the table's one visible GPU
	if p.visible.kind != visibleNone {
		n = min(n, int(p.visible.n))
	}
	if n == 1 {
		return 0
	}
	return -1
}

// sameModel: the framework's name and nvidia-smi's may both be known; a different one means the row is
// another GPU (or a MIG slice), whose memory says nothing of this device.
func sameModel(framework, smi string) bool {
	if framework == "" || smi == "" {
		return true
	}
	if cut, ok := strings.CutSuffix(smi, "..."); ok {
		return strings.HasPrefix(framework, cut)
	}
	return framework == smi
}

// HeldThreshold is the memory others must hold at start to count: max(1 GiB, 5% of the total). A CUDA
// context and the driver's reserve take a few hundred MiB that no restart frees.
func (d Device) HeldThreshold() grammar.Size {
	total := d.FreeTotal
	if !total.Known {
		total = d.Capacity
	}
	return grammar.KnownSize(max(1<<30, total.Bytes/20))
}

// Held is the memory others held at start (FreeTotal − Free) and whether it is above HeldThreshold;
// unknown without both from one source.
func (d Device) Held() (grammar.Size, bool) {
	if !d.Free.Known || !d.FreeTotal.Known {
		return grammar.Size{}, false
	}
	held := max(0, d.FreeTotal.Bytes-d.Free.Bytes)
	return grammar.KnownSize(held), held > d.HeldThreshold().Bytes
}

// WholeFree reports that the memory free at start was the device's whole: known from one source for this
// device (not FreeByPosition), and not held above the threshold.
func (d Device) WholeFree() bool {
	held, above := d.Held()
	return held.Known && !above && !d.FreeByPosition
}

// TensorFlow reports whether the process printed TensorFlow's own device lines: evidence of its framework,
// the weakest (a JAX job reading tf.data prints them too).
func (p *Process) TensorFlow() bool {
	for i := range p.dev {
		if p.dev[i].seen&(kindTFFound|kindTFCreated) != 0 {
			return true
		}
	}
	return false
}
