// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// hostKillsDescriptor: a host kill never counts in the XLA failure metrics, nor an XLA failure here, so alerts keep
// their meaning.
var hostKillsDescriptor = descriptor{
	name: "xla.oom.host.kills",
	description: "Processes killed for host memory (the kernel's OOM killer, systemd-oomd, earlyoom, kubelet, Slurm, Ray), " +
		"per job-level resource (the record resource reduced to incident_resource_attributes): one per kill the xla_oom " +
		"processor joined from its source's lines, however many tasks it killed and however many sources report it. Not XLA failures: they never count in xla.oom.incidents.",
	unit: "{kill}",
}

// hostSources (in killSource's bit order), hostConstraints and retries are the closed sets of the attributes; a value
// outside them (a hand-made tag) is counted as "other".
var (
	hostSources = []string{hostoom.SourceKernel, hostoom.SourceOomd, hostoom.SourceSystemd, hostoom.SourceEarlyoom,
		hostoom.SourceKubernetes, hostoom.SourceSlurm, hostoom.SourceRay}
	hostConstraints = []string{string(hostoom.ConstraintCgroup), string(hostoom.ConstraintGlobal),
		string(hostoom.ConstraintCpuset), string(hostoom.ConstraintMemoryPolicy)}
	retries = []string{oom.RetryFutile, oom.RetryMayHelp, oom.RetryUnknown}
)

func (c *xlaOOMConnector) addHostKill(into map[resourceKey]*resourceBatch, rl plog.ResourceLogs, lr plog.LogRecord, now time.Time) {
	if !c.state.enabled[metricHostKills] {
		return
	}
	attrs := lr.Attributes()
	get := func(k string, set []string) string {
		v, ok := attrs.Get(k)
		switch {
		case !ok || v.Str() == "":
			return ""
		case slices.Contains(set, v.Str()):
			return v.Str()
		}
		return "other"
	}
	m := measurement{kind: hostKill, attrs: attrKey{hostSource: get(oomattr.HostSource, hostSources),
		hostConstraint: get(oomattr.HostConstraint, hostConstraints), retry: get(oomattr.Retry, retries)}}
	var k killReport
	k.key, k.once = oomattr.HostKillKey(rl.Resource().Attributes(), attrs)
	c.fileUnderJob(into, rl, observation{measured: m, at: recordtime.Of(lr, now), kill: &k})
}

// killReport is whose kill a kill record reports (oomattr.HostKillKey).
type killReport struct {
	key  string
	once bool
}

// freshKills keeps the records of obs that report a kill not counted yet; a later report of one in the batch settles
// its verdict (a Pod's OOMKilled alone is unknown, the kernel's line decides). The caller holds mu.
func (c *xlaOOMConnector) freshKills(obs []observation, now time.Time) []observation {
	fresh := obs[:0]
	counted := map[string]int{} // the last kill of each owner counted in this batch, in fresh
	for _, ob := range obs {
		k := ob.kill // every kill record has one (addHostKill)
		if c.state.hostKills.observe(k.key, k.once, ob.measured.attrs.hostSource, ob.at, now) {
			counted[k.key] = len(fresh)
			fresh = append(fresh, ob)
		} else if i, ok := counted[k.key]; ok && within(fresh[i].at, ob.at, c.state.hostKills.window) {
			settleRetry(&fresh[i], ob) // a kill has no code
		}
	}
	return fresh
}

// killMemory (docs/incidents.md, "One kill, many sources"): a record joins a near kill of its owner that its source
// has not reported (a second report is a second kill), whose report it repeats (a retried delivery), or any when its
// owner is a container instance, which dies once.
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

// observe files source's report of key's kill at record time t and reports whether it is a kill not counted yet;
// one without an owner always is.
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
