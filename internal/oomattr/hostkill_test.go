// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oomattr

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
)

// TestHostKillKey: a kill record's attributes (PutHostKill) name the kill
// as hostoom.KillKey names the kill itself, on the resource's node.
func TestHostKillKey(t *testing.T) {
	const cid = "4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
	slurm, _ := hostoom.Parse("slurmstepd: error: Detected 1 oom_kill event in StepId=8841.batch. Some of the step tasks have been OOM Killed.")
	unit, _ := hostoom.Parse("train.service: A process of this unit has been killed by the OOM killer.")
	for _, c := range []struct {
		resource map[string]string
		node     string
		s        hostoom.KillReport
	}{
		{map[string]string{"host.name": "node-7"}, "node-7", hostoom.KillReport{Kind: hostoom.KernelKilled, PID: 1, Command: "python",
			Cgroup: "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d1e6c0a_3f2b_4c5d_9e8f_7a6b5c4d3e2f.slice/cri-containerd-" + cid + ".scope"}},
		{nil, "", hostoom.KillReport{Kind: hostoom.PodOOMKilled, PodUID: "8d1e6c0a-3f2b-4c5d-9e8f-7a6b5c4d3e2f", Container: "trainer"}},
		{map[string]string{"k8s.node.name": "node-8"}, "node-8", slurm},
		{map[string]string{"host.name": "node-7", "k8s.node.name": "node-8"}, "node-7", unit},
		{nil, "", hostoom.KillReport{Kind: hostoom.KernelUsage, LimitCgroup: "/batch/a", Node: "node-9"}},
		{nil, "", hostoom.KillReport{Kind: hostoom.EarlyoomKill, PID: 4, Command: "python", Node: "node-9"}},
		{nil, "", hostoom.KillReport{Kind: hostoom.RayOOM, Count: 2}},
	} {
		res, attrs := pcommon.NewMap(), pcommon.NewMap()
		for k, v := range c.resource {
			res.PutStr(k, v)
		}
		k := &hostoom.Kill{KillReport: c.s, Tasks: 1, Complete: true}
		PutHostKill(k, attrs)
		wantKey, wantOnce := hostoom.KillKey(k.Owner(), &k.KillReport, c.node)
		if key, once := HostKillKey(res, attrs); key != wantKey || once != wantOnce {
			t.Errorf("%v: %q %v, want %q %v", c.s.Kind, key, once, wantKey, wantOnce)
		}
	}
}
