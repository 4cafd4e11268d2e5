// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"cmp"
	"regexp"
	"strconv"
	"strings"
)

var (
	// kubelet's SystemOOM Node event (oom_watcher_linux.go, 1.9+): a victim in the root cgroup
	systemOOMRe = regexp.MustCompile(`System OOM encountered, victim process: (.*), pid: (\d+)`)
	// kubelet's log line of the same: cAdvisor's OomInstance ("%+v"), from knowledge
	sysOOMLogRe = regexp.MustCompile(`Got sys oom event.*?\bPid:(\d+) ProcessName:(\S*) .*?\bVictimContainerName:(\S*)(?:.*?\bConstraint:(CONSTRAINT_\w+))?`)
	// the eviction manager's line (1.21+ structured), from knowledge; the pod is named later
	kubeletEvictRe = regexp.MustCompile(`[Ee]viction manager: must evict pod\(s\) to reclaim(?:" resourceName="| )memory(?:"|$)`)
	// eviction/helpers.go: "…, request is …, has larger consumption of …" (1.19+), "…, which exceeds its request of …" (1.14-1.18)
	evictionRe = regexp.MustCompile(`The node was low on resource: memory\.(?: Threshold quantity: (\S+?), available: (\S+?)\.)?(?: Container (\S+) was using (\S+?)(?:, request is (\S+?)|, which exceeds its request of (\S+?))[,.])?`)
)

// parseKubernetes reads kubelet's SystemOOM and eviction messages.
func parseKubernetes(msg string) (KillReport, bool) {
	if strings.Contains(msg, "System OOM encountered") {
		if m := systemOOMRe.FindStringSubmatch(msg); m != nil {
			return KillReport{Kind: NodeSystemOOM, Command: m[1], PID: num(m[2]), Constraint: ConstraintGlobal, Cgroup: "/"}, true
		}
	}
	if strings.Contains(msg, "Got sys oom event") {
		if m := sysOOMLogRe.FindStringSubmatch(msg); m != nil && m[3] == "/" {
			return KillReport{Kind: NodeSystemOOM, Command: m[2], PID: num(m[1]),
				Constraint: cmp.Or(kernelConstraint(m[4]), ConstraintGlobal), Cgroup: "/"}, true
		}
	}
	if strings.Contains(msg, "must evict pod(s)") && kubeletEvictRe.MatchString(msg) {
		return KillReport{Kind: Eviction, Constraint: ConstraintGlobal, Reason: "kubelet eviction manager"}, true
	}
	if strings.Contains(msg, "low on resource: memory") {
		if m := evictionRe.FindStringSubmatch(msg); m != nil {
			s := KillReport{Kind: Eviction, Constraint: ConstraintGlobal, Container: m[3], RSS: Quantity(m[4]),
				Limit: Quantity(m[5] + m[6])} // Limit: the request
			if m[1] != "" {
				s.Reason = "threshold " + m[1] + ", available " + m[2]
			}
			return s, true
		}
	}
	return KillReport{}, false
}

// Quantity reads a Kubernetes quantity ("100Mi", "2G") in bytes; 0 for none.
func Quantity(q string) int64 {
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

// PodKills reads a Pod object's OOMKilled containers; each Key names one termination (a watch repeats a last state).
func PodKills(obj map[string]any) []KillReport {
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
	var out []KillReport
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

// oomTermination reads containerStatus[state].terminated if OOMKilled.
func oomTermination(cs map[string]any, state, podUID string) (KillReport, bool) {
	st, _ := cs[state].(map[string]any)
	term, _ := st["terminated"].(map[string]any)
	if reason, _ := term["reason"].(string); reason != "OOMKilled" {
		return KillReport{}, false
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
	return KillReport{Kind: PodOOMKilled, Constraint: ConstraintCgroup, Container: name, ContainerID: id,
		PodUID: podUID, Reason: "OOMKilled", Key: podUID + "/" + name + "/" + id + "/" + finished + "/" + restarts}, true
}
