package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// seriesKey identifies a series within a resource.
type seriesKey struct {
	metric metricID
	attrs  attrKey
}

// series is the running state of one metric stream.
type series struct {
	attrs    attrKey
	overflow bool // the overflow series of its metric

	// start is the earliest record time of the data not yet emitted; for a
	// cumulative series that has been emitted it is frozen (a cumulative start
	// that moved would read as a reset).
	start pcommon.Timestamp
	// last is the latest record time ever added.
	last pcommon.Timestamp
	// prevEnd is the time of the last emitted point (delta start of the next).
	prevEnd pcommon.Timestamp
	emitted bool
	dirty   bool      // data added since the last emission
	seen    time.Time // wall clock of the last update, for expiry

	count   int64             // xla.oom.errors
	gauge   float64           // xla.oom.pressure: the value of the latest record
	gaugeAt pcommon.Timestamp // and that record's time
	hist    histogram         // size histograms
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

// touch moves the series' times for a record at t, seen at now.
func (s *series) touch(t pcommon.Timestamp, now time.Time, delta bool) {
	if (delta || !s.emitted) && (!s.dirty || t < s.start) {
		s.start = t
	}
	if t > s.last {
		s.last = t
	}
	s.dirty = true
	s.seen = now
}

// resourceState holds the series of one resource.
type resourceState struct {
	key       resourceKey
	resource  pcommon.Resource // a private copy
	schemaURL string
	series    map[seriesKey]*series
}

// state is every series the connector holds. It is not safe for concurrent
// use; the connector guards it with a mutex.
type state struct {
	delta   bool
	limit   int // series per metric, overflow series not counted
	expiry  time.Duration
	bounds  []float64
	enabled [numMetrics]bool

	resources map[resourceKey]*resourceState
	counts    [numMetrics]int     // series per metric
	overflow  [numMetrics]*series // nil until a metric overflows

	// incidents are the incidents already counted (job resource key +
	// incident ID), with the wall clock they were last seen, for expiry.
	incidents map[string]time.Time
}

// maxIncidents bounds the incidents remembered for deduplication.
const maxIncidents = 10000

// newIncident reports whether key was not seen within the expiry, and
// remembers it. When the set is full the oldest entry is forgotten (a copy of
// it arriving later would count again).
func (st *state) newIncident(key string, now time.Time) bool {
	if seen, ok := st.incidents[key]; ok && now.Sub(seen) < st.expiry {
		st.incidents[key] = now
		return false
	}
	if len(st.incidents) >= maxIncidents {
		st.expireIncidents(now)
	}
	if len(st.incidents) >= maxIncidents {
		oldest, at := "", now
		for k, t := range st.incidents {
			if oldest == "" || t.Before(at) {
				oldest, at = k, t
			}
		}
		delete(st.incidents, oldest)
	}
	st.incidents[key] = now
	return true
}

func (st *state) expireIncidents(now time.Time) {
	for k, t := range st.incidents {
		if now.Sub(t) >= st.expiry {
			delete(st.incidents, k)
		}
	}
}

func newState(cfg *Config) *state {
	return &state{
		delta:     cfg.AggregationTemporality == TemporalityDelta,
		limit:     cfg.SeriesLimit,
		expiry:    cfg.SeriesExpiry,
		bounds:    slices.Clone(cfg.Buckets),
		enabled:   cfg.Metrics.enabled(),
		resources: map[resourceKey]*resourceState{},
		incidents: map[string]time.Time{},
	}
}

// observation is one XLA OOM record: its measurement and its time.
type observation struct {
	m measurement
	t pcommon.Timestamp
}

// add records the observations of one resource and returns how many
// measurements went to an overflow series.
func (st *state) add(key resourceKey, res pcommon.Resource, schemaURL string, obs []observation, now time.Time) (overflowed int64) {
	rs := st.resources[key]
	for i := range obs {
		o := &obs[i]
		for id := metricID(0); id < numMetrics; id++ {
			if !st.enabled[id] || !o.m.has(id) {
				continue
			}
			var s *series
			s, rs = st.lookup(rs, key, res, schemaURL, seriesKey{metric: id, attrs: o.m.attrsFor(id)})
			if s.overflow {
				overflowed++
			}
			s.touch(o.t, now, st.delta)
			switch id {
			case metricErrors, metricIncidents:
				s.count++
			case metricRequested:
				s.hist.observe(st.bounds, float64(o.m.requested))
			case metricShortfall:
				s.hist.observe(st.bounds, float64(o.m.shortfall))
			case metricPressure:
				if o.t >= s.gaugeAt {
					s.gauge, s.gaugeAt = o.m.pressure, o.t
				}
			}
		}
	}
	return overflowed
}

func (m *measurement) has(id metricID) bool {
	if m.incident || id == metricIncidents {
		return m.incident && id == metricIncidents
	}
	switch id {
	case metricRequested:
		return m.hasRequested
	case metricShortfall:
		return m.hasShortfall
	case metricPressure:
		return m.hasPressure
	default:
		return true
	}
}

// lookup finds or creates the series of k, creating the resource state on
// first use; past the limit it returns the metric's overflow series.
func (st *state) lookup(rs *resourceState, key resourceKey, res pcommon.Resource, schemaURL string, k seriesKey) (*series, *resourceState) {
	if rs != nil {
		if s, ok := rs.series[k]; ok {
			return s, rs
		}
	}
	if st.counts[k.metric] >= st.limit {
		if st.overflow[k.metric] == nil {
			st.overflow[k.metric] = &series{overflow: true}
		}
		return st.overflow[k.metric], rs
	}
	if rs == nil {
		rs = &resourceState{key: key, resource: pcommon.NewResource(), schemaURL: schemaURL, series: map[seriesKey]*series{}}
		res.CopyTo(rs.resource)
		st.resources[key] = rs
	}
	s := &series{attrs: k.attrs}
	rs.series[k] = s
	st.counts[k.metric]++
	return s, rs
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

// expire drops the series that nothing updated for the expiry. A series with
// data not yet emitted is kept whatever its age, so nothing counted is lost.
func (st *state) expire(now time.Time) (expired int64) {
	st.expireIncidents(now)
	stale := func(s *series) bool { return !s.dirty && now.Sub(s.seen) >= st.expiry }
	for key, rs := range st.resources {
		for k, s := range rs.series {
			if stale(s) {
				delete(rs.series, k)
				st.counts[k.metric]--
				expired++
			}
		}
		if len(rs.series) == 0 {
			delete(st.resources, key)
		}
	}
	for id, s := range st.overflow {
		if s != nil && stale(s) {
			st.overflow[id] = nil
			expired++
		}
	}
	return expired
}

// collect expires stale series, then writes the points due into md: every
// series when cumulative (so a Prometheus-style backend does not mark it
// stale), only series with new data when delta, whose values then restart.
func (st *state) collect(now time.Time, md pmetric.Metrics, scope func(pmetric.ScopeMetrics), desc *[numMetrics]descriptor) (expired int64) {
	expired = st.expire(now)

	resources := make([]*resourceState, 0, len(st.resources))
	for _, rs := range st.resources {
		resources = append(resources, rs)
	}
	slices.SortFunc(resources, func(a, b *resourceState) int { return strings.Compare(string(a.key), string(b.key)) })

	var due [numMetrics][]*series
	for _, rs := range resources {
		for id := range due {
			due[id] = due[id][:0]
		}
		for k, s := range rs.series {
			if s.dirty || !st.delta {
				due[k.metric] = append(due[k.metric], s)
			}
		}
		st.write(md, rs.resource, rs.schemaURL, &due, scope, desc)
	}

	for id := range due {
		due[id] = due[id][:0]
		if s := st.overflow[id]; s != nil && (s.dirty || !st.delta) {
			due[id] = append(due[id], s)
		}
	}
	st.write(md, pcommon.NewResource(), "", &due, scope, desc)
	return expired
}

// write appends one ResourceMetrics holding the due series, if any.
func (st *state) write(md pmetric.Metrics, res pcommon.Resource, schemaURL string, due *[numMetrics][]*series,
	scope func(pmetric.ScopeMetrics), desc *[numMetrics]descriptor,
) {
	n := 0
	for id := range due {
		n += len(due[id])
	}
	if n == 0 {
		return
	}
	rm := md.ResourceMetrics().AppendEmpty()
	res.CopyTo(rm.Resource())
	rm.SetSchemaUrl(schemaURL)
	sm := rm.ScopeMetrics().AppendEmpty()
	scope(sm)
	temporality := pmetric.AggregationTemporalityCumulative
	if st.delta {
		temporality = pmetric.AggregationTemporalityDelta
	}
	for id := metricID(0); id < numMetrics; id++ {
		list := due[id]
		if len(list) == 0 {
			continue
		}
		slices.SortFunc(list, func(a, b *series) int {
			switch {
			case a.attrs.less(b.attrs):
				return -1
			case b.attrs.less(a.attrs):
				return 1
			}
			return 0
		})
		m := sm.Metrics().AppendEmpty()
		m.SetName(desc[id].name)
		m.SetDescription(desc[id].description)
		m.SetUnit(desc[id].unit)
		switch id.metricType() {
		case pmetric.MetricTypeSum:
			sum := m.SetEmptySum()
			sum.SetIsMonotonic(true)
			sum.SetAggregationTemporality(temporality)
			sum.DataPoints().EnsureCapacity(len(list))
			for _, s := range list {
				dp := sum.DataPoints().AppendEmpty()
				st.times(s, dp.SetStartTimestamp, dp.SetTimestamp)
				s.putAttributes(dp.Attributes())
				dp.SetIntValue(s.count)
			}
		case pmetric.MetricTypeHistogram:
			h := m.SetEmptyHistogram()
			h.SetAggregationTemporality(temporality)
			h.DataPoints().EnsureCapacity(len(list))
			for _, s := range list {
				dp := h.DataPoints().AppendEmpty()
				st.times(s, dp.SetStartTimestamp, dp.SetTimestamp)
				s.putAttributes(dp.Attributes())
				dp.SetCount(s.hist.count)
				dp.SetSum(s.hist.sum)
				if s.hist.count > 0 {
					dp.SetMin(s.hist.min)
					dp.SetMax(s.hist.max)
				}
				dp.ExplicitBounds().FromRaw(st.bounds)
				if s.hist.buckets == nil {
					s.hist.buckets = make([]uint64, len(st.bounds)+1)
				}
				dp.BucketCounts().FromRaw(s.hist.buckets)
			}
		case pmetric.MetricTypeGauge:
			g := m.SetEmptyGauge()
			g.DataPoints().EnsureCapacity(len(list))
			for _, s := range list {
				dp := g.DataPoints().AppendEmpty()
				dp.SetTimestamp(s.gaugeAt)
				s.putAttributes(dp.Attributes())
				dp.SetDoubleValue(s.gauge)
			}
		default:
		}
		for _, s := range list {
			st.emitted(id, s)
		}
	}
}

// times sets a point's start and time. Cumulative: the series' first record
// and its latest. Delta: the previous point's end (or, for the first point,
// the interval's first record) and the interval's latest record. The time is
// never before the start, even when records arrive out of order.
func (st *state) times(s *series, setStart, setTime func(pcommon.Timestamp)) {
	start := s.start
	if st.delta && s.emitted {
		start = s.prevEnd
	}
	setStart(start)
	setTime(max(s.last, start))
}

// emitted updates a series after its point was written.
func (st *state) emitted(id metricID, s *series) {
	if id != metricPressure {
		start := s.start
		if st.delta && s.emitted {
			start = s.prevEnd
		}
		s.prevEnd = max(s.last, start)
	} else {
		s.prevEnd = s.gaugeAt
	}
	s.emitted = true
	s.dirty = false
	if st.delta {
		s.count = 0
		s.hist.reset()
	}
}

func (s *series) putAttributes(dst pcommon.Map) {
	if s.overflow {
		dst.PutBool(overflowAttribute, true)
		return
	}
	s.attrs.putAttributes(dst)
}
