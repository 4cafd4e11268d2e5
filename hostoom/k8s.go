// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	// kubelet, pkg/kubelet/oom/oom_watcher_linux.go (v1.9+): the Node event
	// of reason SystemOOM, "System OOM encountered, victim process: %s,
	// pid: %d"; sent only when the victim's cgroup is the root.
	systemOOMRe = regexp.MustCompile(`System OOM encountered, victim process: (.*), pid: (\d+)`)
	// kubelet, pkg/kubelet/eviction/helpers.go: "The node was low on
	// resource: %v. " + "Threshold quantity: %v, available: %v. " +
	// "Container %s was using %s, request is %s, has larger consumption of
	// %v. " (v1.19+; v1.14-v1.18: "Container %s was using %s, which exceeds
	// its request of %s. ").
	// kubelet's own log line of the same SystemOOM, klog.V(1)'s "Got sys
	// oom event" with cAdvisor's OomInstance printed with its field names
	// ("%+v": Pid, ProcessName, TimeOfDeath, ContainerName,
	// VictimContainerName, Constraint); from knowledge, not checked against
	// the source. Only a victim in the root cgroup is logged.
	sysOOMLogRe = regexp.MustCompile(`Got sys oom event.*?\bPid:(\d+) ProcessName:(\S*) .*?\bVictimContainerName:(\S*)(?:.*?\bConstraint:(CONSTRAINT_\w+))?`)
	// kubelet's own log line as its eviction manager decides to evict for
	// memory, pkg/kubelet/eviction/eviction_manager.go (from knowledge, not
	// checked against the source): klog's structured "\"Eviction manager:
	// must evict pod(s) to reclaim\" resourceName=\"memory\"" (1.21+),
	// "eviction manager: must evict pod(s) to reclaim memory" before. The
	// manager evicts one pod per pass; the pod is named on a later line.
	kubeletEvictRe = regexp.MustCompile(`[Ee]viction manager: must evict pod\(s\) to reclaim(?:" resourceName="| )memory(?:"|$)`)
	evictionRe     = regexp.MustCompile(`The node was low on resource: memory\.(?: Threshold quantity: (\S+?), available: (\S+?)\.)?(?: Container (\S+) was using (\S+?)(?:, request is (\S+?)|, which exceeds its request of (\S+?))[,.])?`)
)

// parseKubernetes reads kubelet's SystemOOM and eviction messages (event
// bodies, a pod's status message) and a text that names the OOMKilled
// termination reason of a k8s event record.
func parseKubernetes(msg string) (Statement, bool) {
	if strings.Contains(msg, "System OOM encountered") {
		if m := systemOOMRe.FindStringSubmatch(msg); m != nil {
			return Statement{Kind: NodeSystemOOM, Command: m[1], PID: num(m[2]), Constraint: ConstraintGlobal, Cgroup: "/"}, true
		}
	}
	if strings.Contains(msg, "Got sys oom event") {
		if m := sysOOMLogRe.FindStringSubmatch(msg); m != nil && m[3] == "/" {
			s := Statement{Kind: NodeSystemOOM, Command: m[2], PID: num(m[1]), Constraint: ConstraintGlobal, Cgroup: "/"}
			if m[4] != "" {
				s.Constraint = kernelConstraint(m[4])
			}
			return s, true
		}
	}
	if strings.Contains(msg, "must evict pod(s)") && kubeletEvictRe.MatchString(msg) {
		return Statement{Kind: Eviction, Constraint: ConstraintGlobal, Reason: "kubelet eviction manager"}, true
	}
	if strings.Contains(msg, "low on resource: memory") {
		if m := evictionRe.FindStringSubmatch(msg); m != nil {
			s := Statement{Kind: Eviction, Constraint: ConstraintGlobal, Container: m[3], RSS: Quantity(m[4])}
			if m[1] != "" {
				s.Reason = "threshold " + m[1] + ", available " + m[2]
			}
			s.Limit = Quantity(m[5] + m[6]) // the request
			return s, true
		}
	}
	return Statement{}, false
}

// Quantity reads a Kubernetes quantity ("1234Ki", "100Mi", "2G", "512")
// in bytes; 0 when it is not one.
func Quantity(q string) int64 {
	if q == "" {
		return 0
	}
	units := []struct {
		suffix string
		mult   int64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}}
	for _, u := range units {
		if strings.HasSuffix(q, u.suffix) {
			f, err := strconv.ParseFloat(strings.TrimSuffix(q, u.suffix), 64)
			if err != nil || f < 0 {
				return 0
			}
			return int64(f * float64(u.mult))
		}
	}
	n, err := strconv.ParseInt(q, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// PodKills reads the containers that a Pod object shows terminated with
// reason OOMKilled (state or lastState, containers and init containers), as
// the k8sobjects receiver delivers it: the Pod itself (pull mode) or a
// watch event {"type": …, "object": Pod}. Each statement's Key names the
// container's termination (pod UID, container, restart count, finish
// time), so that the many watch updates that repeat one last state are
// one kill (Joiner drops the repeats).
func PodKills(obj map[string]any) []Statement {
	if o, ok := obj["object"].(map[string]any); ok {
		obj = o
	}
	if kind, _ := obj["kind"].(string); kind != "" && kind != "Pod" {
		return nil
	}
	meta, _ := obj["metadata"].(map[string]any)
	status, _ := obj["status"].(map[string]any)
	if status == nil {
		return nil
	}
	uid, _ := meta["uid"].(string)
	var out []Statement
	for _, list := range []string{"initContainerStatuses", "containerStatuses"} {
		cs, _ := status[list].([]any)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			for _, st := range []string{"state", "lastState"} {
				if s, ok := oomTermination(cm, st, uid); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// oomTermination reads containerStatus[state].terminated when its reason is
// OOMKilled.
func oomTermination(cs map[string]any, state, podUID string) (Statement, bool) {
	st, _ := cs[state].(map[string]any)
	term, _ := st["terminated"].(map[string]any)
	if reason, _ := term["reason"].(string); reason != "OOMKilled" {
		return Statement{}, false
	}
	name, _ := cs["name"].(string)
	id, _ := term["containerID"].(string)
	if id == "" {
		id, _ = cs["containerID"].(string)
	}
	if i := strings.Index(id, "://"); i >= 0 {
		id = id[i+3:]
	}
	finished, _ := term["finishedAt"].(string)
	restarts := ""
	if v, ok := cs["restartCount"].(float64); ok {
		restarts = strconv.FormatFloat(v, 'f', -1, 64)
	} else if v, ok := cs["restartCount"].(int64); ok {
		restarts = strconv.FormatInt(v, 10)
	}
	return Statement{Kind: PodOOMKilled, Constraint: ConstraintCgroup, Container: name, ContainerID: id,
		PodUID: podUID, Reason: "OOMKilled", Key: podUID + "/" + name + "/" + id + "/" + finished + "/" + restarts}, true
}
