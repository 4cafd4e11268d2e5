// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/internal/lru"
)

// maxIncidents bounds the jobs whose incidents are remembered for
// deduplication.
const maxIncidents = 10000

// incidentsPerJob is how many recent incidents of a job are remembered, so
// that a late or repeated delivery of an earlier failure's records (a retry,
// a second agent, a backfilled file) falls into that failure and is not
// counted again.
const incidentsPerJob = 8

// incidentMemory decides which OOM records start a new incident.
//
// An incident is one failure of one job: the records that the job's hosts
// log about it (every host's copy, and every line of it: the allocator's
// warning, the runtime's status line, the Python exception) arrive as a
// burst. A record belongs to the job's open incident when its time is within
// window of a record of one of the job's recent incidents; otherwise it opens
// a new one.
// The identity is the job alone, so neither the sizes a line prints (rounded
// on one line, exact on the next) nor which line a record holds can split a
// failure, and a burst that straddles a minute boundary stays one incident.
//
// Every operation is O(1): entries live in an LRU ordered by the wall clock
// of their last record, so expiry pops from the front and the bound drops the
// oldest entry without scanning.
type incidentMemory struct {
	window time.Duration // the gap in record time that separates incidents
	expiry time.Duration // forget a job's incident after this long without records
	open   *lru.Map[resourceKey, jobIncidentHistory]
}

// jobIncidentHistory holds the recent incidents of a job: a ring of the
// record-time spans they cover.
type jobIncidentHistory struct {
	spans [incidentsPerJob]span
	n     int       // spans in use
	next  int       // the slot the next incident takes (the oldest when full)
	seen  time.Time // wall clock of the job's latest record, for expiry
}

// span is the record times from the first to the last record of an incident.
type span struct{ first, last pcommon.Timestamp }

// join extends the span that t is close to and reports whether there was one.
func (h *jobIncidentHistory) join(t pcommon.Timestamp, window time.Duration) bool {
	for i := range h.n {
		sp := &h.spans[i]
		if within(sp.first, t, window) || within(sp.last, t, window) || (t > sp.first && t < sp.last) {
			sp.first, sp.last = min(sp.first, t), max(sp.last, t)
			return true
		}
	}
	return false
}

func (h *jobIncidentHistory) add(t pcommon.Timestamp) {
	h.spans[h.next] = span{first: t, last: t}
	h.next = (h.next + 1) % incidentsPerJob
	h.n = min(h.n+1, incidentsPerJob)
}

func newIncidentMemory(window, expiry time.Duration) incidentMemory {
	return incidentMemory{window: window, expiry: expiry, open: lru.New[resourceKey, jobIncidentHistory]()}
}

// observe files a record of job at record time t, arriving at now, and
// reports whether it opens a new incident.
func (m *incidentMemory) observe(job resourceKey, t pcommon.Timestamp, now time.Time) bool {
	h := m.open.Touched(job, func(h *jobIncidentHistory) bool { return now.Sub(h.seen) >= m.expiry })
	h.seen = now
	if h.join(t, m.window) {
		return false
	}
	h.add(t)
	m.open.Trim(maxIncidents) // the oldest job's incident: a late copy of it would count again
	return true
}

// expire forgets the incidents that received no record for the expiry.
func (m *incidentMemory) expire(now time.Time) {
	m.open.RemoveStale(func(h *jobIncidentHistory) bool { return now.Sub(h.seen) >= m.expiry })
}

func (m *incidentMemory) len() int { return m.open.Len() }

// within reports whether a and b are less than window apart.
func within(a, b pcommon.Timestamp, window time.Duration) bool {
	if a > b {
		a, b = b, a
	}
	return b-a < pcommon.Timestamp(window)
}
