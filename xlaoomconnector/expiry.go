// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// ended is a series removed by expiry whose end the next emission reports.
type ended struct {
	key       resourceKey
	resource  pcommon.Resource // empty for an overflow series
	schemaURL string
	metric    metricID
	series    *series
}

// expire drops and returns the series that nothing updated for the expiry,
// but not one with data not yet emitted. When cumulative, an expired counter
// is retired: if it comes back it continues from its value, so a repeat
// failure after any gap is above every value the backend has seen. at is the
// emission time, the end marker's.
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
