// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// readXLA reads XLA's pool line (gpu_helpers.cc and its predecessors):
//
//	XLA backend allocating 63763906560 bytes on device 0 for BFCAllocator.
//	XLA backend allocating 59.38GiB (63763906560 bytes) on device 0 for BFCAllocator.
//	XLA backend will use up to N bytes on device D for BFCAllocator.
//	XLA backend allocating N bytes on device D for CudaAsyncAllocator.
//	XLA backend reserving N out of M bytes on device D for BFCAllocator.
//
// The CollectiveBFCAllocator's line is a separate pool and is not read.
func (p *Process) readXLA(line string) bool {
	head, rest, _ := strings.Cut(line, phXLA)
	var pool, free int64
	basis := BasisShare
	switch {
	case strings.HasPrefix(rest, "allocating "):
		rest = rest[len("allocating "):]
	case strings.HasPrefix(rest, "will use up to "):
		rest = rest[len("will use up to "):]
	case strings.HasPrefix(rest, "reserving "):
		// The 2019 form: the pool is a share of M, the memory free at start.
		rest = rest[len("reserving "):]
		n, r, ok := leadingInt(rest)
		if !ok || !strings.HasPrefix(r, " out of ") {
			return false
		}
		pool, rest, basis = n, r[len(" out of "):], BasisFreeAtStart
	default:
		return false
	}
	n, r, ok := leadingInt(rest)
	if !ok {
		return false
	}
	if strings.HasPrefix(r, " bytes") {
		rest = r
	} else if exact, ok := after(rest, " ("); ok {
		// The 2026 form prints a TSL size, then the exact bytes in parentheses.
		if n, rest, ok = leadingInt(exact); !ok {
			return false
		}
	} else {
		return false
	}
	if basis == BasisFreeAtStart {
		free = n
	} else {
		pool = n
		if olderPoolFile(head) {
			basis = BasisFreeAtStart
		}
	}
	if rest, ok = strings.CutPrefix(rest, " bytes"); !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, ")")
	if rest, ok = strings.CutPrefix(rest, " on device "); !ok {
		return false
	}
	ord, rest, ok := leadingInt(rest)
	if !ok || !ordinalOK(int(ord)) {
		return false
	}
	if !strings.HasPrefix(rest, " for BFCAllocator") && !strings.HasPrefix(rest, " for CudaAsyncAllocator") {
		return false
	}
	p.frameworkLine(int(ord), kindPool, false)
	d := &p.dev[ord]
	d.pool, d.basis = grammar.KnownSize(pool), basis
	if free > 0 {
		d.free, d.freeTotal, d.freeFrom = grammar.KnownSize(free), grammar.Size{}, SourceXLA
	}
	return true
}

// olderPoolFile reports whether the log header names a file that printed the pool line before XLA sized the
// pool from the total (2022-11-21): local_client.cc, nvidia_gpu_device.cc and gpu_device.cc sized it from
// the memory free at start. gpu_helpers.cc (from 2022-10-03) is taken as the total's: six weeks overlap.
func olderPoolFile(head string) bool {
	return strings.Contains(head, "local_client.cc:") || strings.Contains(head, "gpu_device.cc:")
}

// readVMM reads the VMM allocator's budget (2026): "VMM device-address allocator pa_budget for device 0:
// 63763120128 bytes." (first named "VMM allocator pa_budget ..."); the budget is total × fraction.
func (p *Process) readVMM(line string) bool {
	rest, _ := after(line, phVMM)
	ord, rest, ok := leadingInt(rest)
	if !ok || !ordinalOK(int(ord)) || !strings.HasPrefix(rest, ": ") {
		return false
	}
	n, rest, ok := leadingInt(rest[2:])
	if !ok || !strings.HasPrefix(rest, " bytes") {
		return false
	}
	p.frameworkLine(int(ord), kindPool, false)
	p.dev[ord].pool, p.dev[ord].basis = grammar.KnownSize(n), BasisShare
	return true
}

// readExecutor reads XLA's device line: "  StreamExecutor device (0): NVIDIA A100-PCIE-40GB, Compute
// Capability 8.0" (2017-2026) or "  StreamExecutor [0]: NVIDIA H100 80GB HBM3, Compute Capability 9.0a
// (Driver: ...)" (2026-01 on).
func (p *Process) readExecutor(line string) bool {
	rest, _ := after(line, phExecutor)
	var close string
	switch {
	case strings.HasPrefix(rest, "device ("):
		rest, close = rest[len("device ("):], "): "
	case strings.HasPrefix(rest, "["):
		rest, close = rest[1:], "]: "
	default:
		return false
	}
	ord, rest, ok := leadingInt(rest)
	if !ok || !ordinalOK(int(ord)) || !strings.HasPrefix(rest, close) {
		return false
	}
	name := rest[len(close):]
	if i := strings.Index(name, ", "); i >= 0 {
		name = name[:i] // the platform version follows: "Compute Capability 8.0", "AMDGPU ISA version: gfx90a"
	}
	switch name = strings.TrimSpace(name); name {
	case "", "Host", "Interpreter":
		return false // TensorFlow's XLA services for the CPU print "StreamExecutor device (0): Host, Default Version"
	}
	// TensorFlow and JAX in one process each print the line: the same model is the same process.
	same := p.dev[ord].model == name
	p.frameworkLine(int(ord), kindExecutor, same)
	if !same || p.dev[ord].model == "" { // a reset may have dropped it
		p.dev[ord].model = clip(name)
	}
	return true
}

// readTFFound reads TensorFlow's "Found device 0 with properties: " (v0.5 on): its memory lines follow,
// in the same record or in the next ones.
func (p *Process) readTFFound(line string) bool {
	rest, ok := after(line, "Found device ")
	if !ok {
		return false
	}
	ord, rest, ok := leadingInt(rest)
	if !ok || !ordinalOK(int(ord)) || !strings.HasPrefix(rest, " "+phFound) {
		return false
	}
	if p.dev[ord].seen&kindTFFound != 0 && !p.ended {
		// TensorFlow prints the block per session (and twice at start in 2.x): the memory lines decide.
		p.reading, p.tfRepeat, p.tfFound = readingNone, true, int8(ord)+1
		return true
	}
	p.frameworkLine(int(ord), kindTFFound, false)
	p.tfFound = int8(ord) + 1
	return true
}

// repeatDecided settles a repeated "Found device N" by its memory: the same total, and the same free
// memory or less by no more than the process's own pool (and 1 GiB), is the same process; else a new one
// begins. It reports whether the figures read belong to a new process (and must be recorded).
func (p *Process) repeatDecided(total, free grammar.Size) bool {
	if !p.tfRepeat {
		return true
	}
	ord := int(p.tfFound - 1)
	d := &p.dev[ord]
	same := d.capacity == total
	if same && free.Known && d.free.Known {
		drop := d.free.Bytes - free.Bytes
		same = drop == 0 || d.pool.Known && drop > 0 && drop <= d.pool.Bytes+1<<30
	}
	if same {
		if !free.Known && d.free.Known {
			return false // "Total memory:" of a repeated v0.5-v1.3 block: wait for its "Free memory:"
		}
		p.tfRepeat, p.tfFound = false, 0
		p.pending, p.pendingVD = table{}, visible{}
		return false
	}
	p.reset(true)
	p.started, p.tfFound = true, int8(ord)+1
	p.dev[ord].seen |= kindTFFound
	return true
}

// readTFMemory reads the memory lines of TensorFlow's "Found device N": "totalMemory: 11.17GiB freeMemory:
// 497.25MiB" (v1.4-v1.13), "Total memory: 11.17GiB" then "Free memory: 11.11GiB" (v0.5-v1.3),
// "deviceMemorySize: 14.75GiB" (v2.1 on, the total only).
func (p *Process) readTFMemory(line string) bool {
	if p.tfFound == 0 {
		return false
	}
	ord := p.tfFound - 1
	if total, ok := sizeAfter(line, phTotalMemory+" "); ok {
		free, _ := sizeAfter(line, "freeMemory: ")
		if p.repeatDecided(total, free) {
			p.dev[ord].setTotalFree(total, free)
		}
		p.tfFound = 0
		return true
	}
	if total, ok := sizeAfter(line, phDeviceMemorySize+" "); ok {
		if p.repeatDecided(total, grammar.Size{}) {
			p.dev[ord].capacity = total
		}
		p.tfFound = 0
		return true
	}
	if total, ok := sizeAfter(line, phTotalMemoryT1+" "); ok {
		if p.repeatDecided(total, grammar.Size{}) {
			p.dev[ord].setTotalFree(total, grammar.Size{})
			p.tfFound = ord + 1 // its "Free memory:" follows
		}
		return true
	}
	if free, ok := sizeAfter(line, phFreeMemoryT1+" "); ok && p.dev[ord].capacity.Known {
		if p.repeatDecided(p.dev[ord].capacity, free) {
			p.dev[ord].setTotalFree(p.dev[ord].capacity, free)
		}
		p.tfFound = 0
		return true
	}
	return false
}

// setTotalFree records TensorFlow's total and, where printed, the free memory with it.
func (f *framework) setTotalFree(total, free grammar.Size) {
	f.capacity = total
	if free.Known {
		f.free, f.freeTotal, f.freeFrom = free, total, SourceTensorFlow
	}
}

// sizeAfter reads the TSL size ("11.17GiB", "497.25MiB") that follows label.
func sizeAfter(line, label string) (grammar.Size, bool) {
	rest, ok := after(line, label)
	if !ok {
		return grammar.Size{}, false
	}
	tok, _, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
	s := grammar.ParseSizeToken(tok)
	return s, s.Known && s.Bytes > 0
}

// readTFCreated reads TensorFlow's device line, whose MB is the pool limit (bytes_limit >> 20):
//
//	Created device /job:localhost/replica:0/task:0/device:GPU:0 with 38367 MB memory:  -> device: 0, name: NVIDIA A100-PCIE-40GB, pci bus id: 0000:00:04.0, compute capability: 8.0
//	Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10802 MB memory) -> physical GPU (device: 0, name: GeForce GTX 1080 Ti, pci bus id: 0000:01:00.0, compute capability: 6.1)
//
// TensorFlow sizes the pool from the memory free at start unless a fraction or a limit was configured, which
// the line does not tell: the basis is the free memory, the one that lets no rule read too much into it.
func (p *Process) readTFCreated(line string) bool {
	rest, ok := after(line, "device:GPU:")
	if !ok || strings.Contains(line, "PluggableDevice") {
		return false
	}
	mb, ok := after(rest, " with ")
	if !ok {
		return false
	}
	n, r, ok := leadingInt(mb)
	if !ok || !strings.HasPrefix(r, " "+phTFCreated) {
		return false
	}
	phys, ok := after(r, "device: ")
	if !ok {
		return false
	}
	ord, phys, ok := leadingInt(phys)
	if !ok || !ordinalOK(int(ord)) {
		return false
	}
	name := ""
	if v, ok := after(phys, "name: "); ok {
		name, _, _ = strings.Cut(v, ", pci bus id")
	}
	pool := grammar.KnownSize(n << 20)
	d := &p.dev[ord]
	same := d.seen&kindTFCreated != 0 && d.pool == pool && d.model == clip(name)
	p.frameworkLine(int(ord), kindTFCreated, same)
	d = &p.dev[ord]
	d.pool, d.basis = pool, BasisFreeAtStart
	if name != "" {
		d.model = clip(name)
	}
	return true
}
