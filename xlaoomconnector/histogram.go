// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"sort"
)

// histogram is the running state of one explicit-bucket histogram series.
type histogram struct {
	count    uint64
	sum      float64
	min, max float64
	buckets  []uint64
}

func (h *histogram) observe(bounds []float64, v float64) {
	if h.buckets == nil {
		h.buckets = make([]uint64, len(bounds)+1)
	}
	if h.count == 0 {
		h.min, h.max = v, v
	}
	h.min, h.max = min(h.min, v), max(h.max, v)
	h.count++
	h.sum += v
	// Bucket i holds (bounds[i-1], bounds[i]]; the first bound >= v.
	h.buckets[sort.SearchFloat64s(bounds, v)]++
}

// take returns the histogram's content and leaves it empty: the values of a
// delta point on their way out.
func (h *histogram) take() histogram {
	out := *h
	*h = histogram{buckets: slices.Clone(out.buckets)} // nil stays nil
	clear(h.buckets)
	return out
}

// merge adds o back into h (a delta point whose send failed): the result is
// what h would hold had o never been taken.
func (h *histogram) merge(o histogram) {
	if o.count == 0 {
		return
	}
	if h.count == 0 {
		h.min, h.max = o.min, o.max
	}
	h.min, h.max = min(h.min, o.min), max(h.max, o.max)
	h.count += o.count
	h.sum += o.sum
	if h.buckets == nil {
		h.buckets = make([]uint64, len(o.buckets))
	}
	for i, n := range o.buckets {
		h.buckets[i] += n
	}
}
