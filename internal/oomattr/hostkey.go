// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomattr

import (
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
)

// HostKillID is the name under which hostIncident hashes HostKillKey (no
// record carries it).
const HostKillID = "xla.oom.host.kill"

// HostKillKey names the kill that a kill record (PutHostKill) carries by
// its owner, not by the source that reported it, so that the sources of
// one kill name it alike: the kernel's lines of a pod's container and the
// Pod's OOMKilled status (the pod's uid and the container's id), the
// kernel's lines of a Slurm step and slurmstepd's line (the job and step),
// the kernel's lines of a unit and systemd's (the unit on its node). A
// container outside Kubernetes is its id; another cgroup its path on its
// node; a kill with no cgroup its victim on its node. The node is the
// resource's host.name or k8s.node.name, else the node the line names.
// once reports that the key names one container instance, which dies at
// most once. "" when the record names neither an owner nor a victim.
func HostKillKey(res, attrs pcommon.Map) (key string, once bool) {
	str := func(m pcommon.Map, k string) string {
		if v, ok := m.Get(k); ok {
			return v.AsString()
		}
		return ""
	}
	node := str(res, "host.name")
	if node == "" {
		node = str(res, "k8s.node.name")
	}
	if node == "" {
		node = str(attrs, HostNode)
	}
	var pid int64
	if v, ok := attrs.Get(ProcessPID); ok {
		pid = v.Int()
	}
	cid := str(attrs, ContainerID)
	switch hostoom.OwnerKind(str(attrs, HostOwner)) {
	case hostoom.OwnerPod:
		if cid != "" {
			return join("k8s_pod", str(attrs, K8sPodUID), cid), true
		}
		return join("k8s_pod", str(attrs, K8sPodUID), "", str(attrs, K8sContainer)), false
	case hostoom.OwnerContainer:
		return join("container", cid), cid != ""
	case hostoom.OwnerSlurm:
		return join("slurm_job", str(attrs, HostSlurmJob), str(attrs, HostSlurmStep)), false
	case hostoom.OwnerUnit:
		return join("systemd_unit", node, str(attrs, HostUnit)), false
	case hostoom.OwnerCgroup:
		cg := str(attrs, HostCgroup)
		if cg == "" {
			cg = str(attrs, HostLimitCgroup)
		}
		return join("cgroup", node, cg), false
	}
	if pid == 0 && str(attrs, K8sContainer) == "" {
		return "", false
	}
	return join("node", node, strconv.FormatInt(pid, 10), str(attrs, ProcessCommand), str(attrs, K8sContainer)), false
}

// join writes each part length-prefixed, so that no two keys run into
// each other.
func join(parts ...string) string {
	var b []byte
	for _, p := range parts {
		b = strconv.AppendInt(b, int64(len(p)), 10)
		b = append(b, ':')
		b = append(b, p...)
	}
	return string(b)
}
