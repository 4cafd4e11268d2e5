// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"context"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/internal/stage"
)

// Host kills come from texts the host cues passed, tails (host_kill_tails) and map bodies (journald,
// k8sobjects); a pod or container owner moves to the resource level after the batch, for k8sattributes.

// taggedHost is what tag returns for a record that carries a host kill.
const taggedHost tagging = 100

// structured reads a map body: a journald entry or a k8sobjects Pod or
// Event.
func (p *logsProcessor) structured(rl plog.ResourceLogs, lr plog.LogRecord, b *batch) (string, tagging) {
	if oomattr.Tagged(lr.Attributes()) {
		return "", untouched
	}
	body := lr.Body().Map()
	var text, transport string
	var obj stage.Object
	for k, v := range body.All() {
		switch {
		case k == "MESSAGE" && v.Type() == pcommon.ValueTypeStr: // journald
			text = v.Str()
		case k == "_TRANSPORT" && v.Type() == pcommon.ValueTypeStr:
			transport = v.Str()
		case k == "object" && v.Type() == pcommon.ValueTypeMap: // a k8sobjects watch event
			obj = object(v.Map())
		case k == "kind" && v.Type() == pcommon.ValueTypeStr: // a k8sobjects pull
			obj = object(body)
		}
	}
	st, ok := stage.Structured(text, transport, obj)
	if !ok {
		return "", untouched
	}
	var t stage.Tags
	b.closed = p.stage.Host(p.input(rl, lr, b, true), marksOf(lr.Attributes()), st, &t, b.closed)
	return p.write(rl, lr, &t, b)
}

// object is a Kubernetes object body as the stage reads it.
type object pcommon.Map

func (o object) Str(key string) (string, bool) {
	v, ok := pcommon.Map(o).Get(key)
	return v.Str(), ok && v.Type() == pcommon.ValueTypeStr
}

func (o object) Raw() map[string]any { return pcommon.Map(o).AsRaw() }

// writeKill tags the record whose line completed a kill, or at which one ended without its own line; the
// other kills that ended at it without one (a record of several selection lines) go in records of their own.
func (p *logsProcessor) writeKill(rl plog.ResourceLogs, lr plog.LogRecord, t *stage.Tags, b *batch) (string, tagging) {
	kill := &t.Kill
	written := false
	for i := range t.Ended {
		if k := &t.Ended[i]; !k.Complete && (written || *k != *kill) {
			b.kills = append(b.kills, assembly.EndedKill{Kill: *k, Origin: &origin{resource: rl.Resource(), schemaURL: rl.SchemaUrl()}})
		} else if *k == *kill {
			written = true
		}
	}
	attrs := lr.Attributes()
	oomattr.PutHostKill(kill, attrs)
	nameEvent(lr, oomattr.EventHostKill)
	attrs.PutStr(oomattr.Incident, hostIncident(rl.Resource().Attributes(), attrs, kill, recordtime.Of(lr, b.now), p.cfg))
	p.setSeverity(lr, plog.SeverityNumberError, "ERROR")
	return kill.Kind.Source(), taggedHost
}

// sendKills gives the kills that ended with no record to carry them (assembly.EndedKill) to the next consumer,
// one record each, in its stream's resource.
func (p *logsProcessor) sendKills(ctx context.Context, kills []assembly.EndedKill) error {
	if len(kills) == 0 {
		return nil
	}
	ld := plog.NewLogs()
	p.appendKills(ld, kills)
	moveHostKills(ld)
	return p.next.ConsumeLogs(ctx, ld)
}

// appendKills adds to ld a record per kill, in a resource of its own.
func (p *logsProcessor) appendKills(ld plog.Logs, kills []assembly.EndedKill) {
	now := p.now()
	for i := range kills {
		k := &kills[i]
		rl := ld.ResourceLogs().AppendEmpty()
		if o, _ := k.Origin.(*origin); o != nil {
			o.resource.CopyTo(rl.Resource())
			rl.SetSchemaUrl(o.schemaURL)
		}
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName(metadata.ScopeName)
		lr := sl.LogRecords().AppendEmpty()
		ts := pcommon.NewTimestampFromTime(now)
		if !k.First.IsZero() {
			ts = pcommon.NewTimestampFromTime(k.First)
		}
		lr.SetTimestamp(ts)
		lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(now))
		lr.Body().SetStr("host-memory kill: " + k.Cause())
		attrs := lr.Attributes()
		oomattr.PutHostKill(&k.Kill, attrs)
		nameEvent(lr, oomattr.EventHostKill)
		attrs.PutStr(oomattr.Incident, hostIncident(rl.Resource().Attributes(), attrs, &k.Kill, ts, p.cfg))
		lr.SetSeverityNumber(plog.SeverityNumberError)
		lr.SetSeverityText("ERROR")
	}
}

// hostIncident is the kill's xla.oom.incident.id: its owner (oomattr.HostKillKey), not its reporter, so the
// kernel's lines, a Pod's OOMKilled and Slurm's line of one kill share it; else its job, node and cgroup.
func hostIncident(res, attrs pcommon.Map, k *hostoom.Kill, ts pcommon.Timestamp, cfg *Config) string {
	m := pcommon.NewMap()
	if key, _ := oomattr.HostKillKey(res, attrs); key != "" {
		m.PutStr(oomattr.HostKillID, key)
		return incident.ID(m, []string{oomattr.HostKillID}, ts, cfg.IncidentWindow)
	}
	res.CopyTo(m)
	cg := k.LimitCgroup
	if cg == "" {
		cg = k.Cgroup
	}
	m.PutStr(oomattr.HostCgroup, cg)
	all := append(append([]string{}, cfg.IncidentResourceAttributes...), "host.name", "k8s.node.name", oomattr.HostCgroup)
	return incident.ID(m, all, ts, cfg.IncidentWindow)
}

// moveHostKills moves kill records owned by a pod or container to a resource that names it (k8s.pod.uid,
// container.id), one per owner, keeping their scope.
func moveHostKills(ld plog.Logs) {
	rls := ld.ResourceLogs()
	n := rls.Len()
	type dest struct{ sl plog.ScopeLogs }
	made := map[string]dest{}
	for i := 0; i < n; i++ {
		rl := rls.At(i)
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			sl := sls.At(j)
			sl.LogRecords().RemoveIf(func(lr plog.LogRecord) bool {
				attrs := lr.Attributes()
				pod, _ := attrs.Get(oomattr.K8sPodUID)
				cid, _ := attrs.Get(oomattr.ContainerID)
				if !oomattr.HostKilled(attrs) || pod.Str() == "" && cid.Str() == "" {
					return false
				}
				if _, set := rl.Resource().Attributes().Get(oomattr.K8sPodUID); set {
					return false // the resource names a pod already
				}
				key := strconv.Itoa(i) + "/" + strconv.Itoa(j) + "/" + pod.Str() + "/" + cid.Str()
				d, ok := made[key]
				if !ok {
					nrl := rls.AppendEmpty()
					rls.At(i).Resource().CopyTo(nrl.Resource())
					if pod.Str() != "" {
						nrl.Resource().Attributes().PutStr(oomattr.K8sPodUID, pod.Str())
					}
					if cid.Str() != "" {
						nrl.Resource().Attributes().PutStr(oomattr.ContainerID, cid.Str())
					}
					nrl.SetSchemaUrl(rls.At(i).SchemaUrl())
					nsl := nrl.ScopeLogs().AppendEmpty()
					sls.At(j).Scope().CopyTo(nsl.Scope())
					nsl.SetSchemaUrl(sls.At(j).SchemaUrl())
					d = dest{nsl}
					made[key] = d
				}
				lr.CopyTo(d.sl.LogRecords().AppendEmpty())
				return true
			})
		}
	}
}
