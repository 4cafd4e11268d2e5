// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"strconv"
	"strings"
)

// table is one nvidia-smi default table: its GPU rows by nvidia-smi index.
type table struct {
	csv     columns // set: the table is the CSV query's
	rows    [MaxDevices]gpuRow
	n       int  // GPUs listed (memory rows read)
	mig     bool // MIG is on: a GPU row is not one device
	started bool // startTable began it: something may be written
}

// used: the table may hold something (clearing its rows costs more than asking).
func (t *table) used() bool { return t.started }

type gpuRow struct {
	listed      bool
	model       string
	used, total int64 // MiB; total 0: not read
	holders     [MaxHolders]string
	nHolders    uint8
}

// visible is CUDA_VISIBLE_DEVICES as a job script echoed it.
type visible struct {
	kind uint8 // visibleNone, visibleIndex, visibleUUID, visibleMIG
	n    int8
	idx  [MaxDevices]int8
}

const (
	visibleNone uint8 = iota
	visibleIndex
	visibleUUID
	visibleMIG
)

// readSMI reads the nvidia-smi default table as job scripts print it. A table starts at its column header
// (the "NVIDIA-SMI" line above it holds no prefilter key); it counts only if it came before any framework
// line of the process and is the process's first, since a monitor loop prints tables while the job holds
// its own memory.
func (p *Process) readSMI(line string) bool {
	if strings.Contains(line, phSMIColumns) && strings.Contains(line, "Disp.A") {
		return p.startTable(columns{})
	}
	if strings.Contains(line, phCSVHeader) {
		c, ok := readColumns(line)
		return ok && p.startTable(c)
	}
	var t *table
	switch p.reading {
	case readingTable:
		t = &p.table
	case readingPending:
		t = &p.pending
	default:
		return false
	}
	if t.csv.total != 0 {
		return hasCSVCue(line) && t.readCSVRow(line) && t == &p.table
	}
	first, _, _ := strings.Cut(strings.Trim(strings.TrimSpace(line[strings.IndexByte(line, '|')+1:]), "|"), "|")
	switch {
	case strings.Contains(line, phSMIMIG), strings.Contains(line, phSMIMIGSection), strings.HasSuffix(strings.TrimSpace(line), phSMIMIGEnabled):
		t.mig = true
	case t.mig:
	case strings.Contains(line, phSMIBusID):
		return t.readGPU(first) && t == &p.table
	case strings.Contains(line, "MiB /"):
		return t.readMemory(line) && t == &p.table
	case strings.Contains(line, phSMIMiB):
		return t.readHolder(first) && t == &p.table
	}
	return false
}

// startTable begins a table (cols set: the CSV query's) and reports whether it is the process's at start.
func (p *Process) startTable(cols columns) bool {
	if p.ended {
		p.reset(false)
	}
	switch {
	case !p.started && !p.taken:
		p.table, p.taken = table{csv: cols, started: true}, true
		p.reading = readingTable
		return true
	case p.started:
		p.pending = table{csv: cols, started: true}
		p.reading = readingPending
	default:
		p.reading = readingNone // a second table before the framework started
	}
	return false
}

// columns are 1 + the positions of the CSV query's columns (0: absent).
type columns struct{ index, name, used, total, free, count int8 }

// readColumns reads the header of "nvidia-smi --query-gpu=...,memory.used,memory.total --format=csv":
// "index, name, memory.used [MiB], memory.total [MiB]" (memory.free may stand for memory.used).
func readColumns(line string) (columns, bool) {
	var c columns
	i := int8(0)
	for f := range strings.SplitSeq(strings.TrimSpace(line), ", ") {
		if i++; i > 16 {
			return columns{}, false
		}
		switch f {
		case "index":
			c.index = i
		case "name":
			c.name = i
		case "memory.used [MiB]":
			c.used = i
		case "memory.total [MiB]":
			c.total = i
		case "memory.free [MiB]":
			c.free = i
		}
	}
	c.count = i
	return c, c.total != 0 && (c.used != 0 || c.free != 0)
}

// hasCSVCue: the line holds phCSVRow, a digit, " MiB, " and a digit.
func hasCSVCue(line string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], " MiB, ")
		if j < 0 {
			return false
		}
		j += i
		if j > 0 && isDigit(line[j-1]) && j+6 < len(line) && isDigit(line[j+6]) {
			return true
		}
		i = j + 1
	}
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// readCSVRow reads a row of the CSV query: "0, NVIDIA H100 80GB HBM3, 61437 MiB, 81559 MiB"; without an
// index column the rows are in index order.
func (t *table) readCSVRow(line string) bool {
	var r gpuRow
	i, n, free := int8(0), t.n, int64(-1)
	for f := range strings.SplitSeq(strings.TrimSpace(line), ", ") {
		if i++; i > t.csv.count {
			return false
		}
		mib, rest, ok := leadingInt(f)
		mibOK := ok && rest == " MiB"
		switch i {
		case t.csv.index:
			if !ok || rest != "" || !ordinalOK(int(mib)) {
				return false
			}
			n = int(mib)
		case t.csv.name:
			r.model = clip(f)
		case t.csv.used:
			r.used = mib
		case t.csv.total:
			r.total = mib
		case t.csv.free:
			free = mib
		default:
			continue
		}
		if (i == t.csv.used || i == t.csv.total || i == t.csv.free) && !mibOK {
			return false
		}
	}
	if i != t.csv.count {
		return false
	}
	if t.csv.used == 0 {
		r.used = r.total - free
	}
	if !ordinalOK(n) || r.total <= 0 || r.used < 0 || r.used > r.total {
		return false
	}
	r.listed = true
	t.rows[n] = r
	t.n = max(t.n, n+1)
	return true
}

// readGPU reads a GPU row's first cell: "   0  NVIDIA H100 80GB HBM3          On  " (the name may be cut
// with "..."). It holds no prefilter key: its model is read where the table is one record.
func (t *table) readGPU(cell string) bool {
	f := strings.Fields(cell)
	if len(f) < 2 {
		return false
	}
	i, err := strconv.Atoi(f[0])
	if err != nil || !ordinalOK(i) {
		return false
	}
	switch f[len(f)-1] {
	case "On", "Off", "WDDM", "TCC", "N/A":
		f = f[:len(f)-1]
	}
	t.rows[i].model = clip(strings.Join(f[1:], " "))
	return true
}

// readMemory reads the row under a GPU row: "| N/A   34C    P0    70W /  700W |   61437MiB /  81559MiB | ...".
// nvidia-smi lists GPUs in index order, so the n-th memory row is GPU n's (its GPU row may be in another record).
func (t *table) readMemory(line string) bool {
	at := strings.Index(line, "MiB /")
	j := at
	for j > 0 && isDigit(line[j-1]) {
		j--
	}
	used, _, ok1 := leadingInt(line[j:at])
	total, rest, ok2 := leadingInt(strings.TrimLeft(line[at+len("MiB /"):], " "))
	if !ok1 || !ok2 || !strings.HasPrefix(rest, "MiB") || total <= 0 || used > total || !ordinalOK(t.n) {
		return false
	}
	r := &t.rows[t.n]
	r.listed, r.used, r.total = true, used, total
	t.n++
	return true
}

// readHolder reads a Processes row: "    0   N/A  N/A     4242      C   python3     58000MiB " (drivers with
// MIG support), "    0      4242      C   python     1234MiB " (older).
func (t *table) readHolder(cell string) bool {
	f := strings.Fields(cell)
	if len(f) < 5 || !strings.HasSuffix(f[len(f)-1], "MiB") {
		return false
	}
	i, err := strconv.Atoi(f[0])
	if err != nil || !ordinalOK(i) || !t.rows[i].listed {
		return false
	}
	usage := strings.TrimSuffix(f[len(f)-1], "MiB")
	if _, err := strconv.Atoi(usage); err != nil {
		return false
	}
	ty := -1
	for k := 2; k < len(f)-2; k++ {
		if _, err := strconv.Atoi(f[k-1]); err == nil && isProcessType(f[k]) {
			ty = k
			break
		}
	}
	if ty < 0 {
		return false
	}
	r := &t.rows[i]
	if int(r.nHolders) < MaxHolders {
		name := strings.Join(f[ty+1:len(f)-1], " ")
		r.holders[r.nHolders] = clip(name + " (pid " + f[ty-1] + ") " + usage + " MiB")
		r.nHolders++
	}
	return true
}

func isProcessType(s string) bool {
	switch s {
	case "C", "G", "C+G", "M", "M+C", "M+G", "M+C+G":
		return true
	}
	return false
}

// readVisible reads a job script's echo of CUDA_VISIBLE_DEVICES: a line that is exactly
// "CUDA_VISIBLE_DEVICES=2,3" or "CUDA_VISIBLE_DEVICES: 2,3" (export and quotes allowed).
func (p *Process) readVisible(line string) bool {
	s := strings.TrimPrefix(strings.TrimSpace(line), "export ")
	s, ok := strings.CutPrefix(s, phVisible)
	if !ok {
		return false
	}
	if v, ok := strings.CutPrefix(s, "="); ok {
		s = v
	} else if v, ok := strings.CutPrefix(s, ": "); ok {
		s = v
	} else {
		return false
	}
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	var v visible
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		switch {
		case strings.HasPrefix(item, "MIG-"):
			v.kind = visibleMIG
		case strings.HasPrefix(item, "GPU-"):
			v.kind = max(v.kind, visibleUUID)
		default:
			i, err := strconv.Atoi(item)
			if err != nil || !ordinalOK(i) {
				return false
			}
			v.kind = max(v.kind, visibleIndex)
			if int(v.n) < MaxDevices {
				v.idx[v.n] = int8(i)
			}
		}
		if int(v.n) >= MaxDevices {
			return false
		}
		v.n++
	}
	if p.ended {
		p.reset(false)
	}
	if p.started {
		p.pendingVD = v // the next process's, if one starts before this one reads more
		return false
	}
	p.visible = v
	return true
}

// row returns the table's row for the framework's ordinal, and whether the mapping is only assumed (the
// table lists several GPUs and nothing tells which the process saw). CUDA's order is taken to be the PCI
// bus order nvidia-smi lists (true on a node of one model).
func (p *Process) row(ordinal int) (r *gpuRow, assumed bool) {
	t, v := &p.table, &p.visible
	if !p.taken || t.mig || v.kind == visibleMIG || !ordinalOK(ordinal) {
		return nil, false
	}
	i := ordinal
	switch {
	case v.kind == visibleIndex && t.n > int(v.n):
		if ordinal >= int(v.n) {
			return nil, false
		}
		i = int(v.idx[ordinal])
	case v.kind == visibleIndex || v.kind == visibleUUID:
		if t.n != int(v.n) {
			return nil, false // UUIDs name no index; fewer rows than visible GPUs: the table is not the node's
		}
		assumed = v.kind == visibleUUID && t.n > 1 // a UUID list's order is CUDA's, not the bus's
	default:
		assumed = t.n > 1
	}
	if !ordinalOK(i) || !t.rows[i].listed {
		return nil, false
	}
	return &t.rows[i], assumed
}
