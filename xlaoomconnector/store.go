// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"sort"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/internal/lru"
)

type resourceState struct {
	key       resourceKey
	resource  pcommon.Resource // a private copy
	schemaURL string
	series    map[seriesKey]*series
}

// state is every series the connector holds; the connector's mutex guards it.
type state struct {
	delta   bool
	limit   int // series per metric, overflow series not counted
	expiry  time.Duration
	bounds  []float64
	enabled [numMetrics]bool

	resources map[resourceKey]*resourceState
	counts    [numMetrics]int     // series per metric
	overflow  [numMetrics]*series // nil until a metric overflows

	// retired keeps expired counters (cumulative only), so one that comes back continues instead of restarting.
	retired [numMetrics]*lru.Map[retiredKey, retiredCounter]

	incidents incidentMemory
	hostKills killMemory // hostkill.go
}

type retiredKey struct {
	resource resourceKey
	series   seriesKey
}

type retiredCounter struct {
	count     int64
	start     pcommon.Timestamp
	lastPoint pcommon.Timestamp
}

func newState(cfg *Config) *state {
	st := &state{
		delta:     cfg.AggregationTemporality == TemporalityDelta,
		limit:     cfg.SeriesLimit,
		expiry:    cfg.SeriesExpiry,
		bounds:    slices.Clone(cfg.Buckets),
		enabled:   cfg.Metrics.enabled(),
		resources: map[resourceKey]*resourceState{},
		incidents: newIncidentMemory(cfg.IncidentWindow, cfg.SeriesExpiry),
		hostKills: killMemory{newMemory[string, killSpan](cfg.IncidentWindow, cfg.SeriesExpiry)},
	}
	for id := range st.retired {
		st.retired[id] = lru.New[retiredKey, retiredCounter]()
	}
	return st
}

// observation is what one record contributes (see measurementKind) and when.
type observation struct {
	measured measurement
	at       pcommon.Timestamp // the record's time (recordtime.Of)
	kill     *killReport       // a host kill's owner (hostkill.go)
}

// add records the observations obs of resource r and returns how many measurements overflowed.
func (st *state) add(r *resourceBatch, obs []observation, now time.Time) (overflowed int64) {
	for i := range obs {
		ob := &obs[i]
		for id := metricID(0); id < numMetrics; id++ {
			if !st.enabled[id] || !ob.measured.feeds(id) {
				continue
			}
			s := st.lookup(r, seriesKey{metric: id, attrs: ob.measured.attrsFor(id)}, now)
			if s.overflow {
				overflowed++
			}
			s.dirty, s.seen = true, now
			switch id {
			case metricErrors, metricIncidents, metricWarnings, metricHostKills:
				s.count++
			case metricRequested:
				s.hist.observe(st.bounds, float64(ob.measured.requested))
			case metricShortfall:
				s.hist.observe(st.bounds, float64(ob.measured.shortfall))
			case metricPressure, metricWarningPressure:
				if ob.at >= s.gaugeAt {
					s.gauge, s.gaugeAt = ob.measured.pressure, ob.at
				}
			}
		}
	}
	return overflowed
}

// lookup finds or creates the series of k (past the limit, the overflow series); a retired counter continues.
func (st *state) lookup(r *resourceBatch, k seriesKey, now time.Time) *series {
	rs := st.resources[r.key]
	if rs != nil {
		if s, ok := rs.series[k]; ok {
			return s
		}
	}
	if st.counts[k.metric] >= st.limit {
		if st.overflow[k.metric] == nil {
			st.overflow[k.metric] = newSeries(attrKey{}, true, now)
		}
		return st.overflow[k.metric]
	}
	if rs == nil {
		rs = &resourceState{key: r.key, resource: pcommon.NewResource(), schemaURL: r.schemaURL, series: map[seriesKey]*series{}}
		r.resource.CopyTo(rs.resource)
		st.resources[r.key] = rs
	}
	s := newSeries(k.attrs, false, now)
	if old, ok := st.retired[k.metric].Get(retiredKey{resource: r.key, series: k}); ok {
		s.count, s.start, s.nextStart, s.lastPoint = old.count, old.start, old.start, old.lastPoint
		st.retired[k.metric].Remove(retiredKey{resource: r.key, series: k})
	}
	rs.series[k] = s
	st.counts[k.metric]++
	return s
}

func (st *state) size() int64 {
	var n int64
	for id := range st.counts {
		n += int64(st.counts[id])
		if st.overflow[id] != nil {
			n++
		}
	}
	return n
}

type seriesKey struct {
	metric metricID
	attrs  attrKey
}

// series is the running state of one metric stream. Point times come from the connector's clock: record times
// are not monotonic, and push backends reject a point that repeats or goes back.
type series struct {
	attrs    attrKey
	overflow bool // the overflow series of its metric

	start     pcommon.Timestamp // the start of every cumulative point and of the first delta one
	nextStart pcommon.Timestamp // the next delta point's start: the last delivered one's time, so deltas tile
	lastPoint pcommon.Timestamp // the time of the last point written; the next is later
	dirty     bool              // data added since the last point was written
	seen      time.Time         // wall clock of the last update, for expiry

	count   int64             // counters
	gauge   float64           // gauges: the value of the latest record
	gaugeAt pcommon.Timestamp // and that record's time, so a late record does not replace it
	hist    histogram         // size histograms
}

func newSeries(attrs attrKey, overflow bool, now time.Time) *series {
	start := pcommon.NewTimestampFromTime(now)
	return &series{attrs: attrs, overflow: overflow, start: start, nextStart: start}
}

// pointTime is the next point's time: after the series' start and last point even if the clock stalls or steps back.
func (s *series) pointTime(now pcommon.Timestamp) pcommon.Timestamp {
	return max(now, s.start+1, s.lastPoint+1)
}

func (s *series) putAttributes(dst pcommon.Map) {
	if s.overflow {
		dst.PutBool(overflowAttribute, true)
		return
	}
	s.attrs.putAttributes(dst)
}

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

// take returns the histogram's content and leaves it empty: a delta point's values on their way out.
func (h *histogram) take() histogram {
	out := *h
	*h = histogram{buckets: slices.Clone(out.buckets)} // nil stays nil
	clear(h.buckets)
	return out
}

// merge adds o back into h (a delta point whose send failed), as if o had never been taken.
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

// ended is a series removed by expiry whose end the next emission reports.
type ended struct {
	key       resourceKey
	resource  pcommon.Resource // empty for an overflow series
	schemaURL string
	metric    metricID
	series    *series
}

// expire drops and returns the series not updated for the expiry; a cumulative counter that comes back continues.
func (st *state) expire(now time.Time, at pcommon.Timestamp) []ended {
	st.incidents.expire(now)
	st.hostKills.expire(now)
	stale := func(s *series) bool { return !s.dirty && now.Sub(s.seen) >= st.expiry }
	var out []ended
	for key, rs := range st.resources {
		for k, s := range rs.series {
			if !stale(s) {
				continue
			}
			delete(rs.series, k)
			st.counts[k.metric]--
			s.lastPoint = s.pointTime(at)
			out = append(out, ended{key: key, resource: rs.resource, schemaURL: rs.schemaURL, metric: k.metric, series: s})
			if !st.delta && k.metric.metricType() == pmetric.MetricTypeSum {
				// Past series_limit per metric, the one retired longest ago goes.
				retired := st.retired[k.metric]
				retired.Put(retiredKey{resource: key, series: k}, retiredCounter{count: s.count, start: s.start, lastPoint: s.lastPoint})
				retired.Trim(st.limit)
			}
		}
		if len(rs.series) == 0 {
			delete(st.resources, key)
		}
	}
	for id, s := range st.overflow {
		if s != nil && stale(s) {
			st.overflow[id] = nil
			s.lastPoint = s.pointTime(at)
			out = append(out, ended{resource: pcommon.NewResource(), metric: metricID(id), series: s})
		}
	}
	return out
}
