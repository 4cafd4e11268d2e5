// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/lru"
)

// killsPerOwner is how many recent kills of one owner are remembered.
const killsPerOwner = 8

// killMemory decides which host kill records are a kill not counted yet.
// Several sources report one kill: the kernel's lines of a pod's container
// and the Pod's OOMKilled status, the kernel's lines of a Slurm step and
// slurmstepd's line, the kernel's and systemd's of a unit. The processor
// names each record's kill by its owner (oomattr.HostKillKey); a record
// belongs to a kill of its owner when its record time is within window of
// that kill's records and its source has not reported that kill (a second
// report of one source within the window is a second kill: a unit killed
// again after its restart), or it repeats a report (the same source and
// time: a retried delivery), or its owner is one container instance,
// which dies once. Like the XLA incidents (incidentMemory), by record
// times rather than the processor's xla.oom.incident.id, so that the
// reports of one kill that straddle a bucket edge count once. Every
// operation is O(1) in the owners remembered.
type killMemory struct {
	window time.Duration
	expiry time.Duration
	open   *lru.Map[string, ownerKills]
}

// ownerKills holds the recent kills of one owner: a ring of their spans.
type ownerKills struct {
	kills [killsPerOwner]killSpan
	n     int
	next  int
	seen  time.Time // wall clock of the owner's latest record, for expiry
}

// killSpan is the record times of one kill's reports, and each source's.
type killSpan struct {
	first, last pcommon.Timestamp
	sources     uint8 // a bit per source (killSource)
	at          [8]pcommon.Timestamp
}

func newKillMemory(window, expiry time.Duration) killMemory {
	return killMemory{window: window, expiry: expiry, open: lru.New[string, ownerKills]()}
}

// killSource is the bit of a source; another value shares the last one.
func killSource(source string) uint8 {
	for i, s := range []string{hostoom.SourceKernel, hostoom.SourceOomd, hostoom.SourceSystemd, hostoom.SourceEarlyoom,
		hostoom.SourceKubernetes, hostoom.SourceSlurm, hostoom.SourceRay} {
		if s == source {
			return uint8(i)
		}
	}
	return 7
}

// observe files a report of the kill of owner (key, once: see
// oomattr.HostKillKey) by source at record time t, arriving at now, and
// reports whether it is a kill not counted yet. A report without an owner
// is always one.
func (m *killMemory) observe(key string, once bool, source string, t pcommon.Timestamp, now time.Time) bool {
	if key == "" {
		return true
	}
	h := m.open.Touched(key, func(h *ownerKills) bool { return now.Sub(h.seen) >= m.expiry })
	h.seen = now
	src := killSource(source)
	for i := range h.n {
		k := &h.kills[i]
		near := within(k.first, t, m.window) || within(k.last, t, m.window) || (t > k.first && t < k.last)
		if near && (once || k.sources&(1<<src) == 0 || k.at[src] == t) {
			k.first, k.last = min(k.first, t), max(k.last, t)
			k.sources |= 1 << src
			k.at[src] = t
			return false
		}
	}
	k := killSpan{first: t, last: t, sources: 1 << src}
	k.at[src] = t
	h.kills[h.next] = k
	h.next = (h.next + 1) % killsPerOwner
	h.n = min(h.n+1, killsPerOwner)
	m.open.Trim(maxIncidents)
	return true
}

// expire forgets the owners that received no record for the expiry.
func (m *killMemory) expire(now time.Time) {
	m.open.RemoveStale(func(h *ownerKills) bool { return now.Sub(h.seen) >= m.expiry })
}
