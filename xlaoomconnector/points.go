// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// emission is one collect's output: the metrics to send and what to settle once the send returned.
type emission struct {
	md       pmetric.Metrics
	expired  int64
	inFlight []inFlight // the delta points sent, whose values go back if the send fails
}

// inFlight is the content of one delta point on its way out.
type inFlight struct {
	series *series
	count  int64
	hist   histogram
	end    pcommon.Timestamp
}

type writer struct {
	st      *state
	at      pcommon.Timestamp // the emission time
	version string            // of the scope
	out     *emission
}

// collect expires stale series, then writes the points due (all when cumulative, lest a backend mark them stale).
func (st *state) collect(now time.Time, version string) *emission {
	out := &emission{md: pmetric.NewMetrics()}
	w := writer{st: st, at: pcommon.NewTimestampFromTime(now), version: version, out: out}
	gone := st.expire(now, w.at)
	out.expired = int64(len(gone))

	var due [numMetrics][]*series
	byKey := func(a, b *resourceState) int { return cmp.Compare(a.key, b.key) }
	for _, rs := range slices.SortedFunc(maps.Values(st.resources), byKey) {
		for id := range due {
			due[id] = due[id][:0]
		}
		for k, s := range rs.series {
			if s.dirty || !st.delta {
				due[k.metric] = append(due[k.metric], s)
			}
		}
		w.write(rs.resource, rs.schemaURL, &due)
	}

	for id := range due {
		due[id] = due[id][:0]
		if s := st.overflow[id]; s != nil && (s.dirty || !st.delta) {
			due[id] = append(due[id], s)
		}
	}
	w.write(pcommon.NewResource(), "", &due)
	if !st.delta {
		w.writeEnds(gone)
	}
	return out
}

// settle: a delivered delta point's end is the next start; a failed one's values go back for the next point.
func (st *state) settle(e *emission, delivered bool) {
	for _, p := range e.inFlight {
		s := p.series
		if delivered {
			s.nextStart = p.end
			continue
		}
		s.count += p.count
		s.hist.merge(p.hist)
		s.dirty = true
	}
}

func (w *writer) write(res pcommon.Resource, schemaURL string, due *[numMetrics][]*series) {
	if !slices.ContainsFunc(due[:], func(l []*series) bool { return len(l) > 0 }) {
		return
	}
	sm := w.appendScope(res, schemaURL)
	for id := metricID(0); id < numMetrics; id++ {
		list := due[id]
		if len(list) == 0 {
			continue
		}
		slices.SortFunc(list, func(a, b *series) int { return a.attrs.compare(b.attrs) })
		m := w.appendMetric(sm, id)
		for _, s := range list {
			w.writePoint(m, s)
		}
	}
}

func (w *writer) appendScope(res pcommon.Resource, schemaURL string) pmetric.ScopeMetrics {
	rm := w.out.md.ResourceMetrics().AppendEmpty()
	res.CopyTo(rm.Resource())
	rm.SetSchemaUrl(schemaURL)
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName(metadata.ScopeName)
	sm.Scope().SetVersion(w.version)
	return sm
}

func (w *writer) appendMetric(sm pmetric.ScopeMetrics, id metricID) pmetric.Metric {
	m := sm.Metrics().AppendEmpty()
	m.SetName(descriptors[id].name)
	m.SetDescription(descriptors[id].description)
	m.SetUnit(descriptors[id].unit)
	temporality := pmetric.AggregationTemporalityCumulative
	if w.st.delta {
		temporality = pmetric.AggregationTemporalityDelta
	}
	switch id.metricType() {
	case pmetric.MetricTypeSum:
		m.SetEmptySum().SetIsMonotonic(true)
		m.Sum().SetAggregationTemporality(temporality)
	case pmetric.MetricTypeHistogram:
		m.SetEmptyHistogram().SetAggregationTemporality(temporality)
	default:
		m.SetEmptyGauge()
	}
	return m
}

// writePoint appends s's point to m; a delta point's values leave the series until settle.
func (w *writer) writePoint(m pmetric.Metric, s *series) {
	end := s.pointTime(w.at)
	start := s.start
	p := inFlight{series: s, count: s.count, hist: s.hist, end: end}
	if w.st.delta {
		start = s.nextStart
		p.hist = s.hist.take() // a gauge has none, nor a count: a failed send only marks it for the next
		s.count = 0
		w.out.inFlight = append(w.out.inFlight, p)
	}
	switch m.Type() {
	case pmetric.MetricTypeSum:
		stamp(m.Sum().DataPoints().AppendEmpty(), s, start, end).SetIntValue(p.count)
	case pmetric.MetricTypeHistogram:
		dp := stamp(m.Histogram().DataPoints().AppendEmpty(), s, start, end)
		dp.SetCount(p.hist.count)
		dp.SetSum(p.hist.sum)
		if p.hist.count > 0 {
			dp.SetMin(p.hist.min)
			dp.SetMax(p.hist.max)
		}
		dp.ExplicitBounds().FromRaw(w.st.bounds)
		buckets := p.hist.buckets
		if buckets == nil {
			buckets = make([]uint64, len(w.st.bounds)+1)
		}
		dp.BucketCounts().FromRaw(buckets)
	default:
		stamp(m.Gauge().DataPoints().AppendEmpty(), s, 0, end).SetDoubleValue(s.gauge)
	}
	s.lastPoint = end
	s.dirty = false
}

// writeEnds writes one NoRecordedValue end marker per expired series (the Prometheus exporter drops the series,
// remote write sends a staleness marker), each in its own Metric: the exporter (v0.158) stops at the first flagged.
func (w *writer) writeEnds(gone []ended) {
	slices.SortFunc(gone, func(a, b ended) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.metric, b.metric), a.series.attrs.compare(b.series.attrs))
	})
	var sm pmetric.ScopeMetrics
	for i, g := range gone {
		if i == 0 || g.key != gone[i-1].key || g.series.overflow != gone[i-1].series.overflow {
			sm = w.appendScope(g.resource, g.schemaURL)
		}
		m := w.appendMetric(sm, g.metric)
		s, noValue := g.series, pmetric.DefaultDataPointFlags.WithNoRecordedValue(true)
		switch m.Type() {
		case pmetric.MetricTypeSum:
			stamp(m.Sum().DataPoints().AppendEmpty(), s, s.start, s.lastPoint).SetFlags(noValue)
		case pmetric.MetricTypeHistogram:
			stamp(m.Histogram().DataPoints().AppendEmpty(), s, s.start, s.lastPoint).SetFlags(noValue)
		default:
			stamp(m.Gauge().DataPoints().AppendEmpty(), s, 0, s.lastPoint).SetFlags(noValue)
		}
	}
}

type dataPoint interface {
	SetStartTimestamp(pcommon.Timestamp)
	SetTimestamp(pcommon.Timestamp)
	Attributes() pcommon.Map
}

// stamp dates dp from start (0 for a gauge) to end and gives it s's attributes.
func stamp[P dataPoint](dp P, s *series, start, end pcommon.Timestamp) P {
	dp.SetStartTimestamp(start)
	dp.SetTimestamp(end)
	s.putAttributes(dp.Attributes())
	return dp
}
