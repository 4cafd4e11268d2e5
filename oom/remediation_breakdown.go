// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"
	"strings"
)

// breakdownAdvice returns the actions a memory breakdown's numbers call for:
// the culprit with its source line, padding waste and the dimension to
// align, buffer donation, and what the runtime figures say.
func breakdownAdvice(r *Report) advice {
	var a advice
	b := &r.Breakdown
	if i := b.Culprit(); i >= 0 {
		c := &b.Allocations[i]
		s := "The largest allocation naming an operator is " + humanSize(c.Size)
		if c.Shape != "" {
			s += " (" + c.Shape + ")"
		}
		s += ", made by " + shortOp(c.OpName)
		if src := c.Source(); src != "" {
			s += " at " + src
		}
		a.add(s, ": shrink, shard (sharding constraints) or rematerialize this value first.")
	}
	if i := b.LargestInput(); i >= 0 {
		in := &b.Allocations[i]
		s := "The largest program input in the list takes " + humanSize(in.Size)
		if in.Shape != "" {
			s += " (" + in.Shape + ")"
		}
		a.add(s, ": shard or shrink that argument, or donate it if it is not needed after the call.")
	}
	padded := 0
	for i := range b.Allocations {
		e := &b.Allocations[i]
		if e.Expansion <= 1.5 || padded == 3 {
			continue
		}
		padded++
		s := "Padding: "
		if e.OpName != "" {
			s += shortOp(e.OpName) + " "
		} else {
			s += "an allocation "
		}
		s += "holds " + humanSize(e.Size)
		if e.Unpadded.Known {
			s += " for " + humanSize(e.Unpadded) + " of data"
		}
		s += " (" + strconv.FormatFloat(e.Expansion, 'f', 1, 64) + "× expansion)."
		if hint := alignmentHint(e.Shape); hint != "" {
			s += " " + hint
		} else {
			s += " TPU arrays are tiled (8,128) on their two minor-most dimensions: make those multiples of 8 and 128, or reorder dimensions so a large one is minor-most."
		}
		a.add(s)
	}
	if b.Padding.Known && b.Temp.Known && b.Temp.Bytes > 0 && b.Padding.Bytes*4 > b.Temp.Bytes {
		a.add(HumanBytes(b.Padding.Bytes), " of the ", humanSize(b.Temp), " of HLO temporaries is tile padding: aligning array dimensions to the TPU tile saves more than any flag.")
	}
	if b.Output.Known && b.OutputShared.Known && b.OutputShared.Bytes == 0 && b.Arguments.Known &&
		b.Arguments.Bytes >= 1<<30 && (!b.Total.Known || b.Arguments.Bytes*10 >= b.Total.Bytes) {
		a.add("The arguments take ", humanSize(b.Arguments), " and the output (", humanSize(b.Output),
			") shares none of it: donate the arguments the step replaces (jax.jit(..., donate_argnums=...)) so the output is written into their memory.")
	}
	if b.AvailableAfter.Known && b.AvailableAfter.Bytes < 0 {
		s := "After the request the device would be short by " + HumanBytes(-b.AvailableAfter.Bytes)
		if b.Allocated.Known {
			s += ", with " + humanSize(b.Allocated) + " already allocated by data buffers"
		}
		if b.Program.Known {
			s += " and the program needing " + humanSize(b.Program)
		}
		a.add(s, ": this is exhaustion, not fragmentation; free or shard data buffers before the program loads.")
	}
	if r.Phase == PhaseRuntime && b.Fragmentation.Known && b.Total.Known && b.Total.Bytes > 0 {
		pct := float64(b.Fragmentation.Bytes) / float64(b.Total.Bytes) * 100
		if pct >= 10 {
			a.add("The buffer assignment wastes ", humanSize(b.Fragmentation), " (", strconv.FormatFloat(pct, 'f', 1, 64),
				"%) to fragmentation: a different allocator (XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async) or fewer live buffers of mixed sizes may recover it.")
		}
	}
	return a
}

// shortOp keeps an operator name readable in advice.
func shortOp(op string) string {
	if len(op) > 160 {
		op = op[:160]
		for len(op) > 0 && op[len(op)-1]&0xC0 == 0x80 {
			op = op[:len(op)-1]
		}
		if len(op) > 0 && op[len(op)-1] >= 0xC0 {
			op = op[:len(op)-1]
		}
		op += "..."
	}
	return "`" + op + "`"
}

// alignmentHint reads a TPU shape such as s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}
// and names the minor-most dimensions that are not multiples of the tile.
func alignmentHint(shape string) string {
	lb := strings.IndexByte(shape, '[')
	rb := strings.IndexByte(shape, ']')
	if lb < 0 || rb < lb {
		return ""
	}
	var dims []int64
	for _, f := range strings.Split(shape[lb+1:rb], ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return ""
		}
		dims = append(dims, n)
	}
	if len(dims) == 0 {
		return ""
	}
	// minor-to-major order from the layout {4,3,2,0,1:T(8,128)}; default: row-major
	order := make([]int, 0, len(dims))
	tile := [2]int64{8, 128}
	if lc := strings.IndexByte(shape[rb:], '{'); lc >= 0 {
		lay := shape[rb+lc+1:]
		if e := strings.IndexByte(lay, '}'); e >= 0 {
			lay = lay[:e]
		}
		dimsPart, tilePart, _ := strings.Cut(lay, ":")
		for _, f := range strings.Split(dimsPart, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 || n >= len(dims) {
				order = order[:0]
				break
			}
			order = append(order, n)
		}
		if t, ok := strings.CutPrefix(tilePart, "T("); ok {
			if e := strings.IndexByte(t, ')'); e >= 0 {
				if x, y, ok := strings.Cut(t[:e], ","); ok {
					a, err1 := strconv.ParseInt(x, 10, 64)
					b, err2 := strconv.ParseInt(y, 10, 64)
					if err1 == nil && err2 == nil && a > 0 && b > 0 {
						tile = [2]int64{a, b}
					}
				}
			}
		}
	}
	if len(order) != len(dims) {
		order = order[:0]
		for i := len(dims) - 1; i >= 0; i-- {
			order = append(order, i)
		}
	}
	var bad []string
	check := func(d int, mult int64, role string) {
		if n := dims[d]; n%mult != 0 {
			padTo := (n + mult - 1) / mult * mult
			bad = append(bad, "dimension "+strconv.Itoa(d)+" (size "+strconv.FormatInt(n, 10)+", "+role+
				") is padded to "+strconv.FormatInt(padTo, 10)+"; make it a multiple of "+strconv.FormatInt(mult, 10))
		}
	}
	check(order[0], tile[1], "minor-most")
	if len(order) > 1 {
		check(order[1], tile[0], "second minor-most")
	}
	if len(bad) == 0 {
		return ""
	}
	return "With the (" + strconv.FormatInt(tile[0], 10) + "," + strconv.FormatInt(tile[1], 10) + ") tile, " +
		strings.Join(bad, "; ") + ", or move a larger dimension to the minor-most position."
}
