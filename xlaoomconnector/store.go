// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

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

	// retired keeps the expired counters (cumulative only), so one that
	// comes back continues instead of restarting at 1.
	retired [numMetrics]*lru.Map[retiredKey, retiredCounter]

	incidents incidentMemory
	hostKills killMemory // hostkill_memory.go
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

// add records the observations obs of resource r and returns how many
// measurements went to an overflow series.
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

// lookup finds or creates the series of k, creating the resource state on
// first use; past the limit it returns the metric's overflow series. A
// retired counter continues: to a backend, one stream after a gap.
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

// size is the number of series held, overflow series included.
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
