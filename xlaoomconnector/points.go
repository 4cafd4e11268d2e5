package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

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
	if id != metricPressure && id != metricWarningPressure {
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
