// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"cmp"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Host-memory kills (package hostoom; the processor tags the record that
// carries one, processor_hostkill.go) feed xla.oom.host.kills, a counter of
// its own beside xla.oom.incidents: one per kill, however many sources
// report it (killMemory, hostkill_memory.go), on the first record's
// resource reduced to incident_resource_attributes (the job), with the
// kill's source, constraint and retry verdict as attributes, each from a
// closed set, so that its series are bounded like the others'
// (series_limit). A kill never counts in the XLA failure metrics, and an
// XLA failure never here: the existing alerts keep their meaning.

// hostKillsDescriptor is xla.oom.host.kills.
var hostKillsDescriptor = descriptor{
	name: "xla.oom.host.kills",
	description: "Processes killed for host memory (the kernel's OOM killer, systemd-oomd, earlyoom, kubelet, Slurm, Ray), " +
		"per job-level resource (the record resource reduced to incident_resource_attributes): one per kill the xla_oom " +
		"processor joined from its source's lines, however many tasks it killed and however many sources report it. Not XLA failures: they never count in xla.oom.incidents.",
	unit: "{kill}",
}

// hostSources and hostConstraints are the closed sets of the attributes; a
// value outside them (a hand-made tag) is counted as "other".
var (
	hostSources = map[string]bool{hostoom.SourceKernel: true, hostoom.SourceOomd: true, hostoom.SourceSystemd: true,
		hostoom.SourceEarlyoom: true, hostoom.SourceKubernetes: true, hostoom.SourceSlurm: true, hostoom.SourceRay: true}
	hostConstraints = map[string]bool{string(hostoom.ConstraintCgroup): true, string(hostoom.ConstraintGlobal): true,
		string(hostoom.ConstraintCpuset): true, string(hostoom.ConstraintMemoryPolicy): true}
	retries = map[string]bool{oom.RetryFutile: true, oom.RetryMayHelp: true, oom.RetryUnknown: true}
)

// addHostKill files a kill record under its job resource.
func (c *xlaOOMConnector) addHostKill(into map[resourceKey]*jobBatch, rl plog.ResourceLogs, lr plog.LogRecord, now time.Time) {
	if !c.state.enabled[metricHostKills] {
		return
	}
	attrs := lr.Attributes()
	get := func(k string, set map[string]bool) string {
		v, ok := attrs.Get(k)
		switch {
		case !ok || v.Str() == "":
			return ""
		case set[v.Str()]:
			return v.Str()
		}
		return "other"
	}
	m := measurement{kind: hostKill, attrs: attrKey{hostSource: get(oomattr.HostSource, hostSources),
		hostConstraint: get(oomattr.HostConstraint, hostConstraints), retry: get(oomattr.Retry, retries)}}
	key, once := oomattr.HostKillKey(rl.Resource().Attributes(), attrs)
	job := c.jobOf(into, rl)
	job.obs = append(job.obs, observation{measured: m, at: recordtime.Of(lr, now),
		kill: &killReport{key: key, once: once, source: m.attrs.hostSource}})
}

// killReport is whose kill a kill record reports (oomattr.HostKillKey) and
// which source reported it.
type killReport struct {
	key    string
	once   bool
	source string
}

// freshKills keeps the kill records of obs, in record order, that report
// a kill not counted yet (killMemory). A later report of a kill counted in
// the same batch, within the window, gives it the verdict its first did
// not (a Pod's OOMKilled alone is unknown, the kernel's line of the same
// kill decides), as settleRetry does for XLA incidents. The caller holds
// mu.
func (c *xlaOOMConnector) freshKills(obs []observation, now time.Time) []observation {
	slices.SortStableFunc(obs, func(a, b observation) int { return cmp.Compare(a.at, b.at) })
	fresh := obs[:0]
	counted := map[string]int{} // the last kill of each owner counted in this batch, in fresh
	for _, ob := range obs {
		switch {
		case ob.kill == nil || c.state.hostKills.observe(ob.kill.key, ob.kill.once, ob.kill.source, ob.at, now):
			if ob.kill != nil {
				counted[ob.kill.key] = len(fresh)
			}
			fresh = append(fresh, ob)
		default:
			if i, ok := counted[ob.kill.key]; ok && fresh[i].measured.attrs.retry == oom.RetryUnknown &&
				within(fresh[i].at, ob.at, c.state.hostKills.window) {
				fresh[i].measured.attrs.retry = ob.measured.attrs.retry
			}
		}
	}
	return fresh
}
