// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"encoding/json"
	"testing"
)

const cid = "4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"

func TestOwnerOf(t *testing.T) {
	for _, c := range []struct {
		path string
		want Owner
	}{
		{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice/cri-containerd-" + cid + ".scope",
			Owner{Kind: OwnerPod, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", QoS: "burstable", ContainerID: cid}},
		{"/kubepods.slice/kubepods-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice/crio-" + cid + ".scope",
			Owner{Kind: OwnerPod, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", ContainerID: cid}},
		{"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice/docker-" + cid + ".scope",
			Owner{Kind: OwnerPod, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", QoS: "besteffort", ContainerID: cid}},
		{"/kubepods/burstable/pod8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f/" + cid,
			Owner{Kind: OwnerPod, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", QoS: "burstable", ContainerID: cid}},
		{"/kubepods/pod8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f/" + cid,
			Owner{Kind: OwnerPod, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", ContainerID: cid}},
		{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice",
			Owner{Kind: OwnerPod, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", QoS: "burstable"}},
		{"/system.slice/slurmstepd.scope/job_8841/step_0/user/task_3", Owner{Kind: OwnerSlurm, SlurmJob: "8841", SlurmStep: "0"}},
		{"/slurm/uid_1000/job_42/step_batch/task_0", Owner{Kind: OwnerSlurm, SlurmJob: "42", SlurmStep: "batch"}},
		{"/slurm/uid_1000/job_42", Owner{Kind: OwnerSlurm, SlurmJob: "42"}},
		{"/system.slice/docker-" + cid + ".scope", Owner{Kind: OwnerContainer, ContainerID: cid}},
		{"/docker/" + cid, Owner{Kind: OwnerContainer, ContainerID: cid}},
		{"/system.slice/kubelet.service", Owner{Kind: OwnerUnit, Unit: "kubelet.service"}},
		{"/user.slice/user-1000.slice/user@1000.service/app.slice/train.scope", Owner{Kind: OwnerUnit, Unit: "train.scope"}},
		{"/", Owner{Kind: OwnerNode}},
		{"/xlaoom-bar-29254", Owner{Kind: OwnerCgroup}},
		{"", Owner{}},
	} {
		c.want.Path = c.path
		if got := OwnerOf(c.path); got != c.want {
			t.Errorf("OwnerOf(%q):\n got %+v\nwant %+v", c.path, got, c.want)
		}
	}
}

// podWatch is a pod as the k8sobjects receiver's watch mode delivers it
// (the API server's JSON, trimmed to the fields read).
const podWatch = `{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1",
 "metadata":{"name":"trainer-0","namespace":"ml","uid":"8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f"},
 "status":{"phase":"Running","containerStatuses":[
  {"name":"trainer","restartCount":1,"containerID":"containerd://` + cid + `",
   "state":{"running":{"startedAt":"2026-11-27T18:49:00Z"}},
   "lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled","startedAt":"2026-11-27T18:40:00Z","finishedAt":"2026-11-27T18:48:46Z","containerID":"containerd://` + cid + `"}}},
  {"name":"sidecar","restartCount":0,"state":{"running":{}},"lastState":{}}]}}}`

func TestPodKills(t *testing.T) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(podWatch), &obj); err != nil {
		t.Fatal(err)
	}
	got := PodKills(obj)
	if len(got) != 1 {
		t.Fatalf("got %d kills, want 1: %+v", len(got), got)
	}
	s := got[0]
	if s.Kind != PodOOMKilled || s.PodUID != "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f" || s.ContainerID != cid || s.Container != "trainer" || s.Key == "" {
		t.Errorf("got %+v", s)
	}
	// The watch repeats the same last state on every update: one kill.
	var j Joiner
	if n := len(j.Add(zero, s)) + len(j.Add(zero, PodKills(obj)[0])); n != 1 {
		t.Errorf("a repeated last state gave %d kills, want 1", n)
	}
	// An Error termination, a Service object: none.
	for _, other := range []string{
		`{"kind":"Pod","metadata":{"uid":"u"},"status":{"containerStatuses":[{"name":"a","lastState":{"terminated":{"exitCode":137,"reason":"Error"}}}]}}`,
		`{"kind":"Service","metadata":{"uid":"u"},"status":{}}`,
	} {
		var o map[string]any
		if err := json.Unmarshal([]byte(other), &o); err != nil {
			t.Fatal(err)
		}
		if k := PodKills(o); len(k) != 0 {
			t.Errorf("%s: got %+v", other, k)
		}
	}
}

// TestKillKey: the reports of one kill by different sources name it alike;
// different kills, and one unit on two nodes, apart.
func TestKillKey(t *testing.T) {
	key := func(node string, s KillReport) (string, bool) {
		k := Kill{KillReport: s}
		return KillKey(k.Owner(), &k.KillReport, node)
	}
	kernel := func(cg string, pid int64) KillReport {
		return KillReport{Kind: KernelKilled, PID: pid, Command: "python", Cgroup: cg, Constraint: ConstraintCgroup}
	}
	podCG := "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice/cri-containerd-" + cid + ".scope"
	status := KillReport{Kind: PodOOMKilled, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", ContainerID: cid, Container: "trainer"}
	slurm, _ := Parse("slurmstepd: error: Detected 1 oom_kill event in StepId=8841.batch. Some of the step tasks have been OOM Killed.")
	unit, _ := Parse("train.service: A process of this unit has been killed by the OOM killer.")
	for _, c := range []struct {
		name         string
		a, b         KillReport
		nodeA, nodeB string
		same, once   bool
	}{
		{name: "kernel and pod status", a: kernel(podCG, 1), b: status, nodeA: "node-7", same: true, once: true},
		{name: "kernel and slurmstepd", a: kernel("/slurm/uid_1000/job_8841/step_batch/task_0", 2), b: slurm, nodeA: "node-7", nodeB: "login-1", same: true},
		{name: "kernel and systemd", a: kernel("/system.slice/train.service", 3), b: unit, nodeA: "node-7", nodeB: "node-7", same: true},
		{name: "a unit on two nodes", a: unit, b: unit, nodeA: "node-7", nodeB: "node-8"},
		{name: "two victims on a node", a: KillReport{Kind: EarlyoomKill, PID: 4}, b: KillReport{Kind: EarlyoomKill, PID: 5, Node: "node-7"}, nodeA: "node-7"},
		{name: "a cgroup and its limit's", a: kernel("/a/b", 1), b: KillReport{Kind: KernelUsage, LimitCgroup: "/a/b"}, nodeA: "node-7", nodeB: "node-7", same: true},
		{name: "a pod's containers without their ids", a: KillReport{Kind: PodOOMKilled, PodUID: "8d1e6c0a", Container: "trainer"}, b: KillReport{Kind: PodOOMKilled, PodUID: "8d1e6c0a", Container: "loader"}},
		{name: "a container outside Kubernetes", a: kernel("/system.slice/docker-"+cid+".scope", 1), b: kernel("/docker/"+cid, 2), same: true, once: true},
	} {
		a, once := key(c.nodeA, c.a)
		if b, _ := key(c.nodeB, c.b); (a == b) != c.same || a == "" {
			t.Errorf("%s: %q and %q", c.name, a, b)
		}
		if once != c.once {
			t.Errorf("%s: once %v", c.name, once)
		}
	}
	if k, _ := key("node-7", KillReport{Kind: RayOOM, Count: 2}); k != "" {
		t.Errorf("no owner and no victim: %q", k)
	}
}
