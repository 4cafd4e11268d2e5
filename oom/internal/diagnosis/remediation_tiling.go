// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package diagnosis

import (
	"strconv"
	"strings"
)

// AlignmentHint reads a TPU shape such as s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)}
// and names the minor-most dimensions that are not multiples of the tile.
func AlignmentHint(shape string) string {
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
	// minor-to-major order from the layout {4,3,2,0,1:T(8,128)}; default: row-major
	order := make([]int, 0, len(dims))
	tile := [2]int64{8, 128}
	if lc := strings.IndexByte(shape[rb:], '{'); lc >= 0 {
		lay, _, _ := strings.Cut(shape[rb+lc+1:], "}")
		dimsPart, tilePart, _ := strings.Cut(lay, ":")
		for _, f := range strings.Split(dimsPart, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 || n >= len(dims) {
				order = order[:0]
				break
			}
			order = append(order, n)
		}
		t, hasTile := strings.CutPrefix(tilePart, "T(")
		t, _, closed := strings.Cut(t, ")")
		x, y, pair := strings.Cut(t, ",")
		a, err1 := strconv.ParseInt(x, 10, 64)
		b, err2 := strconv.ParseInt(y, 10, 64)
		if hasTile && closed && pair && err1 == nil && err2 == nil && a > 0 && b > 0 {
			tile = [2]int64{a, b}
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
