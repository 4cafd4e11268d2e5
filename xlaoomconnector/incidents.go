// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/internal/lru"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// maxIncidents bounds the jobs (and kill owners) remembered for deduplication.
const maxIncidents = 10000

// memory remembers each key's recent incidents (or kills) as the record times they span, so a late or repeated
// delivery (a retry, a second agent, a backfill) is not counted again; an LRU by wall clock keeps expiry O(1).
type memory[K comparable, S any] struct {
	window time.Duration // the gap in record time that separates two
	expiry time.Duration // forget a key after this long without records
	open   *lru.Map[K, recent[S]]
}

// recent is a ring of a key's last 8 spans.
type recent[S any] struct {
	spans   [8]S
	n, next int       // spans in use; the slot the next takes (the oldest when full)
	seen    time.Time // wall clock of the key's latest record, for expiry
}

func newMemory[K comparable, S any](window, expiry time.Duration) memory[K, S] {
	return memory[K, S]{window: window, expiry: expiry, open: lru.New[K, recent[S]]()}
}

func (m *memory[K, S]) touched(key K, now time.Time) *recent[S] {
	h := m.open.Touched(key, func(h *recent[S]) bool { return now.Sub(h.seen) >= m.expiry })
	h.seen = now
	return h
}

// add remembers a new span of h; past the bound the oldest key is dropped.
func (m *memory[K, S]) add(h *recent[S], s S) {
	h.spans[h.next] = s
	h.next = (h.next + 1) % len(h.spans)
	h.n = min(h.n+1, len(h.spans))
	m.open.Trim(maxIncidents)
}

func (m *memory[K, S]) expire(now time.Time) {
	m.open.RemoveStale(func(h *recent[S]) bool { return now.Sub(h.seen) >= m.expiry })
}

// span is the record times from the first to the last record of an incident.
type span struct{ first, last pcommon.Timestamp }

// near reports whether t is within window of the span or inside it.
func (sp *span) near(t pcommon.Timestamp, window time.Duration) bool {
	return within(sp.first, t, window) || within(sp.last, t, window) || (t > sp.first && t < sp.last)
}

func (sp *span) extend(t pcommon.Timestamp) {
	sp.first, sp.last = min(sp.first, t), max(sp.last, t)
}

// incidentMemory decides which OOM records open an incident; keyed by job alone, so nothing printed splits a failure.
type incidentMemory struct {
	memory[resourceKey, span]
}

func newIncidentMemory(window, expiry time.Duration) incidentMemory {
	return incidentMemory{newMemory[resourceKey, span](window, expiry)}
}

// observe files a record of job at record time t, arriving at now, and reports whether it opens an incident.
func (m *incidentMemory) observe(job resourceKey, t pcommon.Timestamp, now time.Time) bool {
	h := m.touched(job, now)
	for i := range h.n {
		if sp := &h.spans[i]; sp.near(t, m.window) {
			sp.extend(t)
			return false
		}
	}
	m.add(h, span{first: t, last: t})
	return true
}

func within(a, b pcommon.Timestamp, window time.Duration) bool {
	return max(a, b)-min(a, b) < pcommon.Timestamp(window)
}

// retryLabel is the record's verdict, else the one its attributes imply (an older processor), else unknown.
func retryLabel(r *oom.Report) string {
	switch r.Retry {
	case oom.RetryFutile, oom.RetryMayHelp, oom.RetryUnknown:
		return r.Retry
	case "":
		return oom.RecordVerdict(r)
	}
	return oom.RetryUnknown
}

// settleRetry gives an incident (or kill) the verdict its opening record lacked from one that joined it in the batch.
func settleRetry(opened *observation, joined observation) {
	if o := &opened.measured.attrs; o.retry == oom.RetryUnknown && o.code == joined.measured.attrs.code {
		o.retry = joined.measured.attrs.retry
	}
}
