package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
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

func (s *series) putAttributes(dst pcommon.Map) {
	if s.overflow {
		dst.PutBool(overflowAttribute, true)
		return
	}
	s.attrs.putAttributes(dst)
}
