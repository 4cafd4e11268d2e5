package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import "sort"

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
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if h.count == 0 || v > h.max {
		h.max = v
	}
	h.count++
	h.sum += v
	// Bucket i holds (bounds[i-1], bounds[i]]; the first bound >= v.
	h.buckets[sort.SearchFloat64s(bounds, v)]++
}

func (h *histogram) reset() {
	h.count, h.sum, h.min, h.max = 0, 0, 0, 0
	clear(h.buckets)
}
