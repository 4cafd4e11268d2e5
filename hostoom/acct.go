// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"strconv"
	"strings"
)

// sacctDoc reads sacct's table (fixed columns under a dashed line, or -p/-P's '|'): one kill per step whose State
// is OUT_OF_MEMORY (17.02+; "OUT_OF_ME+" cut at the default width); a job's row joins its steps' kill, else is one.
type sacctDoc struct {
	names  []string
	spans  [][2]int // from the dashed line; nil for '|'
	pipes  bool
	dashes bool // the dashed line is next
	header bool // the header read
	rows   []sacctRow
}

type sacctRow struct {
	cells map[string]string
	line  int64
}

// newSacct is the reader of sacct's table whose header is l, nil if l is not one.
func newSacct(l string) document {
	t := strings.TrimLeft(l, " ")
	if !strings.HasPrefix(t, "JobID") {
		return nil
	}
	d := &sacctDoc{pipes: strings.Contains(t, "|")}
	if d.pipes {
		d.names = strings.Split(strings.TrimSuffix(t, "|"), "|")
	} else {
		d.names, d.dashes = strings.Fields(t), true
	}
	for _, n := range d.names {
		if n == "State" {
			return d
		}
	}
	return nil
}

func (d *sacctDoc) line(n int64, l string) bool {
	switch {
	case !d.header:
		d.header = true
		return true
	case d.dashes:
		d.dashes = false
		for i := 0; i < len(l); {
			if l[i] != '-' {
				i++
				continue
			}
			j := i
			for j < len(l) && l[j] == '-' {
				j++
			}
			d.spans = append(d.spans, [2]int{i, j})
			i = j
		}
		return len(d.spans) == len(d.names)
	}
	var cells []string
	if d.pipes {
		cells = strings.Split(strings.TrimSuffix(l, "|"), "|")
	} else {
		for _, s := range d.spans {
			if s[0] >= len(l) {
				cells = append(cells, "")
				continue
			}
			cells = append(cells, strings.TrimSpace(l[s[0]:min(s[1], len(l))]))
		}
	}
	if len(cells) != len(d.names) || cells[0] == "" || cells[0][0] < '0' || cells[0][0] > '9' || len(d.rows) >= maxRows {
		return false
	}
	row := sacctRow{cells: make(map[string]string, len(cells)), line: n}
	for i, c := range cells {
		row.cells[d.names[i]] = c
	}
	d.rows = append(d.rows, row)
	return true
}

// outOfMemory: sacct's State, whole or cut to its column ("OUT_OF_ME+").
func outOfMemory(state string) bool {
	const full = "OUT_OF_MEMORY"
	s := strings.TrimSuffix(state, "+")
	return len(s) >= len("OUT_OF") && len(s) <= len(full) && full[:len(s)] == s
}

func (d *sacctDoc) end() []TextKill {
	stepOOM := map[string]bool{}
	for _, r := range d.rows {
		if job, step, _ := strings.Cut(r.cells["JobID"], "."); step != "" && outOfMemory(r.cells["State"]) {
			stepOOM[job] = true
		}
	}
	jobs := map[string]sacctRow{}
	var out []TextKill
	for _, r := range d.rows {
		job, step, _ := strings.Cut(r.cells["JobID"], ".")
		if step == "" {
			jobs[job] = r
		}
		if !outOfMemory(r.cells["State"]) || step == "" && stepOOM[job] {
			continue
		}
		s := KillReport{Kind: SlurmOOM, Constraint: ConstraintCgroup, Job: job, Step: slurmStep(step),
			RSS: slurmSize(r.cells["MaxRSS"]), Node: r.cells["NodeList"], Reason: "OUT_OF_MEMORY"}
		jr := jobs[job]
		s.Limit = reqMem(cmpOr(r.cells["ReqMem"], jr.cells["ReqMem"]), cmpOr(r.cells["AllocCPUS"], jr.cells["AllocCPUS"]))
		s.Node = cmpOr(s.Node, jr.cells["NodeList"])
		out = append(out, textKill(s, r.line, 0))
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// slurmStep names a step as slurmstepd does; sacct cuts "batch" to "bat+".
func slurmStep(s string) string {
	t := strings.TrimSuffix(s, "+")
	for _, full := range []string{"batch", "extern", "interactive"} {
		if t != s && strings.HasPrefix(full, t) {
			return full
		}
	}
	return s
}

// slurmSize reads sacct's sizes ("15.62G", "16384K", "512M"): 1024-based, bytes without a unit.
func slurmSize(s string) int64 {
	s = strings.TrimSuffix(s, "+")
	mult := int64(1)
	if s != "" {
		if i := strings.IndexByte("KMGTP", s[len(s)-1]); i >= 0 {
			mult, s = int64(1)<<(10*(i+1)), s[:len(s)-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0
	}
	return int64(f * float64(mult))
}

// reqMem reads ReqMem: "16G" (21.08+, the job's), "16Gn" per node, "4000Mc" per CPU (before 21.08).
func reqMem(s, cpus string) int64 {
	switch {
	case strings.HasSuffix(s, "n"):
		return slurmSize(strings.TrimSuffix(s, "n"))
	case strings.HasSuffix(s, "c"):
		n, err := strconv.ParseInt(cpus, 10, 64)
		if err != nil || n <= 0 {
			return 0
		}
		return n * slurmSize(strings.TrimSuffix(s, "c"))
	}
	return slurmSize(s)
}

// seffDoc reads seff (contribs/seff): "Job ID:", "State: OUT_OF_MEMORY (exit code 0)", "Memory Utilized: 15.62 GB",
// "Memory Efficiency: 97.66% of 16.00 GB".
type seffDoc struct {
	job        string
	oom, seen  bool
	stateLine  int64
	rss, limit int64
}

func (d *seffDoc) line(n int64, l string) bool {
	key, value, ok := keyValue(l)
	if !ok || key == "Job ID" && d.seen || kernelLine(l) {
		return false
	}
	d.seen = true
	switch key {
	case "Job ID":
		d.job = value
	case "State":
		d.oom, d.stateLine = strings.HasPrefix(value, "OUT_OF_MEMORY"), n
	case "Memory Utilized":
		d.rss = seffSize(value)
	case "Memory Efficiency":
		if _, of, ok := strings.Cut(value, " of "); ok {
			d.limit = seffSize(of)
		}
	}
	return true
}

// seffSize reads seff's "15.62 GB" (kbytes2str: 1024-based, KB to EB).
func seffSize(s string) int64 {
	f := strings.Fields(s)
	if len(f) < 2 || len(f[1]) != 2 || f[1][1] != 'B' {
		return 0
	}
	i := strings.IndexByte("KMGTPE", f[1][0])
	v, err := strconv.ParseFloat(f[0], 64)
	if i < 0 || err != nil || v < 0 {
		return 0
	}
	return int64(v * float64(int64(1)<<(10*(i+1))))
}

func (d *seffDoc) end() []TextKill {
	if !d.oom {
		return nil
	}
	return []TextKill{textKill(KillReport{Kind: SlurmOOM, Constraint: ConstraintCgroup, Job: d.job,
		RSS: d.rss, Limit: d.limit, Reason: "OUT_OF_MEMORY"}, d.stateLine, 0)}
}
