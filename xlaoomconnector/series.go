// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

type seriesKey struct {
	metric metricID
	attrs  attrKey
}

// series is the running state of one metric stream. Its point times come
// from the connector's clock: record times are not monotonic, and push
// backends reject a point that repeats or goes back in time.
type series struct {
	attrs    attrKey
	overflow bool // the overflow series of its metric

	// start is the start of every cumulative point and of the first delta one.
	start pcommon.Timestamp
	// nextStart is the start of the next delta point: the time of the last
	// delta point delivered (start before the first), so delta points tile.
	nextStart pcommon.Timestamp
	// lastPoint is the time of the last point written; the next is later.
	lastPoint pcommon.Timestamp
	dirty     bool      // data added since the last point was written
	seen      time.Time // wall clock of the last update, for expiry

	count   int64             // counters
	gauge   float64           // gauges: the value of the latest record
	gaugeAt pcommon.Timestamp // and that record's time, so a late record does not replace it
	hist    histogram         // size histograms
}

func newSeries(attrs attrKey, overflow bool, now time.Time) *series {
	start := pcommon.NewTimestampFromTime(now)
	return &series{attrs: attrs, overflow: overflow, start: start, nextStart: start}
}

// pointTime is the time of the next point emitted at now: after the
// series' start and always after its previous point, even if the clock
// stalls or steps back.
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
