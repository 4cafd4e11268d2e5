// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomattr

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
)

// TestHostKillKey: the reports of one kill by different sources name it
// alike; different kills, and one unit on two nodes, apart.
func TestHostKillKey(t *testing.T) {
	const cid = "4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
	key := func(node string, k hostoom.Statement) (string, bool) {
		res, attrs := pcommon.NewMap(), pcommon.NewMap()
		if node != "" {
			res.PutStr("host.name", node)
		}
		PutHostKill(&hostoom.Kill{Statement: k, Tasks: 1, Complete: true}, attrs)
		return HostKillKey(res, attrs)
	}
	kernel := func(cg string, pid int64) hostoom.Statement {
		return hostoom.Statement{Kind: hostoom.KernelKilled, PID: pid, Command: "python", Cgroup: cg, Constraint: hostoom.ConstraintCgroup}
	}
	podCG := "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice/cri-containerd-" + cid + ".scope"
	status := hostoom.Statement{Kind: hostoom.PodOOMKilled, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", ContainerID: cid, Container: "trainer"}
	slurm, _ := hostoom.Parse("slurmstepd: error: Detected 1 oom_kill event in StepId=8841.batch. Some of the step tasks have been OOM Killed.")
	unit, _ := hostoom.Parse("train.service: A process of this unit has been killed by the OOM killer.")
	for _, c := range []struct {
		name       string
		a, b       string
		same, once bool
	}{
		{name: "kernel and pod status", a: must(key("node-7", kernel(podCG, 1))), b: must(key("", status)), same: true, once: true},
		{name: "kernel and slurmstepd", a: must(key("node-7", kernel("/slurm/uid_1000/job_8841/step_batch/task_0", 2))), b: must(key("login-1", slurm)), same: true},
		{name: "kernel and systemd", a: must(key("node-7", kernel("/system.slice/train.service", 3))), b: must(key("node-7", unit)), same: true},
		{name: "a unit on two nodes", a: must(key("node-7", unit)), b: must(key("node-8", unit))},
		{name: "two victims on a node", a: must(key("node-7", hostoom.Statement{Kind: hostoom.EarlyoomKill, PID: 4})), b: must(key("node-7", hostoom.Statement{Kind: hostoom.EarlyoomKill, PID: 5}))},
	} {
		if (c.a == c.b) != c.same {
			t.Errorf("%s: %q and %q", c.name, c.a, c.b)
		}
		if _, once := key("node-7", kernel(podCG, 1)); c.once && !once {
			t.Errorf("%s: a container instance dies once", c.name)
		}
	}
	if k, _ := key("", hostoom.Statement{Kind: hostoom.RayOOM, Count: 2}); k != "" {
		t.Errorf("no owner and no victim: %q", k)
	}
}

func must(k string, _ bool) string { return k }
