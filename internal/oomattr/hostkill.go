// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomattr

import (
	"cmp"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
)

// Host-memory kills' own attributes, never xla.error.code (XLA's series keep their meaning).
const (
	EventHostKill = "xla.oom.host_kill" // event.name of the record that carries a kill

	HostSource      = "xla.oom.host.source"    // kernel, systemd-oomd, systemd, earlyoom, kubernetes, slurm, ray
	HostStatement   = "xla.oom.host.statement" // what the record's own line says (kernel_killed, kernel_usage, …)
	HostConstraint  = "xla.oom.host.constraint"
	HostRSS         = "xla.oom.host.rss.size"
	HostLimit       = "xla.oom.host.limit.size"
	HostUsage       = "xla.oom.host.usage.size"
	HostCgroup      = "xla.oom.host.cgroup"       // the victim's cgroup (task_memcg)
	HostLimitCgroup = "xla.oom.host.limit_cgroup" // the cgroup whose limit was hit (oom_memcg)
	HostOwner       = "xla.oom.host.owner"        // k8s_pod, container, slurm_job, systemd_unit, node, cgroup
	HostTasks       = "xla.oom.host.tasks"
	HostUnit        = "xla.oom.host.systemd_unit"
	HostSlurmJob    = "xla.oom.host.slurm.job_id"
	HostSlurmStep   = "xla.oom.host.slurm.step_id"
	HostNode        = "xla.oom.host.node" // the node a Slurm or Ray line names

	ProcessPID     = "process.pid"
	ProcessCommand = "process.command"
	K8sPodUID      = "k8s.pod.uid"
	K8sContainer   = "k8s.container.name"
	ContainerID    = "container.id"
)

// PutHostKill writes a kill's attributes, verdict, cause and advice.
func PutHostKill(k *hostoom.Kill, attrs pcommon.Map) {
	attrs.PutStr(HostSource, k.Kind.Source())
	attrs.PutStr(HostStatement, k.Kind.String())
	putStr(attrs, HostConstraint, string(k.Constraint))
	if k.PID != 0 {
		attrs.PutInt(ProcessPID, k.PID)
	}
	putStr(attrs, ProcessCommand, k.Command)
	putSize(attrs, HostRSS, k.RSS)
	putSize(attrs, HostLimit, k.Limit)
	putSize(attrs, HostUsage, k.Usage)
	putStr(attrs, HostCgroup, k.Cgroup)
	putStr(attrs, HostLimitCgroup, k.LimitCgroup)
	putStr(attrs, HostNode, k.Node)
	putStr(attrs, K8sContainer, k.Container)
	if k.Tasks > 1 {
		attrs.PutInt(HostTasks, int64(k.Tasks))
	} else if k.Count > 1 {
		attrs.PutInt(HostTasks, k.Count)
	}
	PutOwner(k.Owner(), attrs)
	verdict, _ := k.Retry()
	attrs.PutStr(Retry, verdict)
	attrs.PutStr(Cause, k.Cause())
	putStrings(attrs, Remediation, k.Advice())
}

// HostKillID names HostKillKey in the incident hash (no record carries it).
const HostKillID = "xla.oom.host.kill"

// HostKillKey is hostoom.KillKey of a kill record's kill, on the resource's node.
func HostKillKey(res, attrs pcommon.Map) (key string, once bool) {
	o := hostoom.Owner{Kind: hostoom.OwnerKind(str(attrs, HostOwner)), PodUID: str(attrs, K8sPodUID),
		ContainerID: str(attrs, ContainerID), SlurmJob: str(attrs, HostSlurmJob), SlurmStep: str(attrs, HostSlurmStep),
		Unit: str(attrs, HostUnit)}
	v := hostoom.KillReport{Command: str(attrs, ProcessCommand), Container: str(attrs, K8sContainer),
		Cgroup: str(attrs, HostCgroup), LimitCgroup: str(attrs, HostLimitCgroup), Node: str(attrs, HostNode)}
	if pid, ok := attrs.Get(ProcessPID); ok {
		v.PID = pid.Int()
	}
	return hostoom.KillKey(o, &v, cmp.Or(str(res, "host.name"), str(res, "k8s.node.name")))
}

func str(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok {
		return v.AsString()
	}
	return ""
}

// PutOwner writes who the kill's cgroup belongs to.
func PutOwner(o hostoom.Owner, attrs pcommon.Map) {
	if o.Kind == "" {
		return
	}
	attrs.PutStr(HostOwner, string(o.Kind))
	putStr(attrs, K8sPodUID, o.PodUID)
	putStr(attrs, ContainerID, o.ContainerID)
	putStr(attrs, HostSlurmJob, o.SlurmJob)
	putStr(attrs, HostSlurmStep, o.SlurmStep)
	putStr(attrs, HostUnit, o.Unit)
}

// PutHostStatement marks a record whose line is part of a kill another record carries: no kill is counted on it.
func PutHostStatement(s *hostoom.KillReport, attrs pcommon.Map) {
	attrs.PutStr(HostSource, s.Kind.Source())
	attrs.PutStr(HostStatement, s.Kind.String())
}

// HostKilled reports whether attrs carry a kill (not just one of its statements): what the connector counts.
func HostKilled(attrs pcommon.Map) bool {
	if _, ok := attrs.Get(HostSource); !ok {
		return false
	}
	_, ok := attrs.Get(Cause) // a kill's record has its cause; a statement's has none
	return ok
}

func putSize(attrs pcommon.Map, k string, v int64) {
	if v > 0 {
		attrs.PutInt(k, v)
	}
}

// MarksAll reports in one pass whether attrs carry an OOM tag, a memory-warning tag and a kill (HostKilled).
func MarksAll(attrs pcommon.Map) (tagged, warned, hostKill bool) {
	var source, cause bool
	for k := range attrs.All() {
		switch k {
		case ErrorCode:
			tagged = true
		case WarningKind:
			warned = true
		case HostSource:
			source = true
		case Cause:
			cause = true
		}
	}
	return tagged, warned, source && cause && !tagged
}
