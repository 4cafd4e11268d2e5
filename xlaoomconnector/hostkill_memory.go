// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// killMemory decides which host kill records are a kill not counted yet
// (docs/incidents.md, "One kill, many sources"): a record joins a near kill
// of its owner (oomattr.HostKillKey) that its source has not reported (a
// second report is a second kill), or whose report it repeats (a retried
// delivery), or any when its owner is a container instance, which dies once.
type killMemory struct {
	memory[string, killSpan]
}

// killSpan is the record times of one kill's reports, and each source's.
type killSpan struct {
	span
	sources uint8 // a bit per source (killSource)
	at      [8]pcommon.Timestamp
}

// killSource is the bit of a source; another value shares the last one.
func killSource(source string) uint8 {
	if i := slices.Index(hostSources, source); i >= 0 {
		return uint8(i)
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
	h := m.touched(key, now)
	src := killSource(source)
	for i := range h.n {
		k := &h.spans[i]
		if k.near(t, m.window) && (once || k.sources&(1<<src) == 0 || k.at[src] == t) {
			k.extend(t)
			k.sources |= 1 << src
			k.at[src] = t
			return false
		}
	}
	k := killSpan{span: span{first: t, last: t}, sources: 1 << src}
	k.at[src] = t
	m.add(h, k)
	return true
}
