// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"cmp"
	"strconv"
	"strings"
)

// OwnerKind says what a cgroup path names.
type OwnerKind string

// Owners (xla.oom.host.owner).
const (
	OwnerPod       OwnerKind = "k8s_pod"   // a Kubernetes pod, and its container when the path goes that deep
	OwnerContainer OwnerKind = "container" // a container outside Kubernetes (Docker, Podman)
	OwnerSlurm     OwnerKind = "slurm_job" // a Slurm job and step
	OwnerUnit      OwnerKind = "systemd_unit"
	OwnerNode      OwnerKind = "node"   // the root cgroup: the node itself
	OwnerCgroup    OwnerKind = "cgroup" // another path, reported as it is
)

// Owner is who a cgroup path belongs to.
type Owner struct {
	Kind        OwnerKind
	PodUID      string // with dashes, as the API server prints it
	QoS         string // guaranteed, burstable, besteffort
	ContainerID string
	SlurmJob    string
	SlurmStep   string
	Unit        string // the deepest systemd unit (foo.service, session-3.scope)
	Path        string
}

// OwnerOf reads a cgroup path's owner: kubepods, Slurm's job_N/step_M, a container, a systemd unit, "/" the node.
func OwnerOf(path string) Owner {
	switch path {
	case "":
		return Owner{}
	case "/":
		return Owner{Kind: OwnerNode, Path: path}
	}
	o := Owner{Kind: OwnerCgroup, Path: path}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range parts {
		switch {
		case strings.HasPrefix(p, "kubepods"):
			if readKubepods(parts[i:], &o) {
				return o
			}
		case strings.HasPrefix(p, "job_"):
			o.Kind, o.SlurmJob = OwnerSlurm, strings.TrimPrefix(p, "job_")
			if i+1 < len(parts) && strings.HasPrefix(parts[i+1], "step_") {
				o.SlurmStep = strings.TrimPrefix(parts[i+1], "step_")
			}
			return o
		}
	}
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if id := runtimeScopeID(p); id != "" {
			o.Kind, o.ContainerID = OwnerContainer, id
			return o
		}
		if i > 0 && (parts[i-1] == "docker" || parts[i-1] == "libpod") && isHexID(p) {
			o.Kind, o.ContainerID = OwnerContainer, p
			return o
		}
		if strings.HasSuffix(p, ".service") || strings.HasSuffix(p, ".scope") {
			o.Kind, o.Unit = OwnerUnit, p
			return o
		}
	}
	return o
}

// readKubepods reads the pod (and container) from the kubepods part on.
func readKubepods(parts []string, o *Owner) bool {
	for i, p := range parts {
		var uid string
		switch {
		case strings.HasSuffix(p, ".slice") && strings.Contains(p, "-pod"):
			// kubepods-burstable-pod<uid>.slice, kubepods-pod<uid>.slice
			uid = strings.ReplaceAll(p[strings.LastIndex(p, "-pod")+len("-pod"):len(p)-len(".slice")], "_", "-")
			if q := strings.TrimPrefix(p[:strings.LastIndex(p, "-pod")], "kubepods-"); q != "kubepods" {
				o.QoS = q
			}
		case strings.HasPrefix(p, "pod") && !strings.Contains(p, "."):
			uid = strings.TrimPrefix(p, "pod")
			if i > 0 && parts[i-1] != "kubepods" {
				o.QoS = parts[i-1]
			}
		default:
			continue
		}
		if uid == "" {
			return false
		}
		o.Kind, o.PodUID = OwnerPod, uid
		if i+1 < len(parts) {
			c := parts[i+1]
			if id := runtimeScopeID(c); id != "" {
				o.ContainerID = id
			} else if isHexID(c) {
				o.ContainerID = c
			}
		}
		return true
	}
	return false
}

// runtimeScopeID reads the container id of a runtime's "<runtime>-<id>.scope".
func runtimeScopeID(p string) string {
	if !strings.HasSuffix(p, ".scope") {
		return ""
	}
	for _, prefix := range []string{"cri-containerd-", "docker-", "crio-", "libpod-"} {
		if strings.HasPrefix(p, prefix) {
			if id := p[len(prefix) : len(p)-len(".scope")]; isHexID(id) {
				return id
			}
		}
	}
	return ""
}

// isHexID: a container id is 64 hex digits (at least 12 accepted).
func isHexID(s string) bool {
	return len(s) >= 12 && len(s) <= 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// KillKey names a kill by its owner o (else victim v on node, else v's): every source of it names it alike. once: a
// container instance, which dies once. "" with neither an owner nor a victim.
func KillKey(o Owner, v *KillReport, node string) (key string, once bool) {
	node = cmp.Or(node, v.Node)
	switch o.Kind {
	case OwnerPod:
		if o.ContainerID != "" {
			return join("k8s_pod", o.PodUID, o.ContainerID), true
		}
		return join("k8s_pod", o.PodUID, "", v.Container), false
	case OwnerContainer:
		return join("container", o.ContainerID), o.ContainerID != ""
	case OwnerSlurm:
		return join("slurm_job", o.SlurmJob, o.SlurmStep), false
	case OwnerUnit:
		return join("systemd_unit", node, o.Unit), false
	case OwnerCgroup:
		return join("cgroup", node, cmp.Or(v.Cgroup, v.LimitCgroup)), false
	}
	if v.PID == 0 && v.Container == "" {
		return "", false
	}
	return join("node", node, strconv.FormatInt(v.PID, 10), v.Command, v.Container), false
}

// join writes each part length-prefixed, so that no two keys run together.
func join(parts ...string) string {
	var b []byte
	for _, p := range parts {
		b = strconv.AppendInt(b, int64(len(p)), 10)
		b = append(b, ':')
		b = append(b, p...)
	}
	return string(b)
}
