// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// TestProcessorReach: the statements the processor reads from a string
// body come through the XLA prefilter: its cues (Recognizer: the
// kernel's kill, reaper, usage and summary lines, earlyoom's 1.8+ and
// SIGTERM lines, Ray's kills, kubelet's "Got sys oom event" through its
// CONSTRAINT_) or, where the processor's host_kill_tails asks, the host
// tails (EndsWithTail: Slurm's and srun's lines, systemd-oomd's pressure kill and systemd's, kubelet's eviction
// manager and eviction message, earlyoom's SIGKILL before 1.8). "invoked
// oom-killer" is left out (its cost): the joiner does without it. No XLA
// failure or warning is found in any of them. The rest reach the processor
// as structured bodies (docs/incidents.md, "Host-memory kills").
func TestProcessorReach(t *testing.T) {
	reach := map[Kind]bool{KernelKilled: true, KernelReaped: true, KernelUsage: true, KernelSummary: true,
		EarlyoomKill: true, RayOOM: true, SlurmOOM: true, SrunOOM: true, OomdKill: true, UnitOOM: true, Eviction: true,
		NodeSystemOOM: true}
	all := append(append([]struct {
		name, line string
		want       KillReport
	}{}, kernelCases...), sourceCases...)
	for _, c := range all {
		promised := reach[c.want.Kind]
		switch {
		case c.want.Kind == KernelSummary && !strings.Contains(c.line, "CONSTRAINT_"),
			c.want.Kind == RayOOM && c.want.Reason == "raylet summary",
			// "… being more than N%": no tail ends with '%' (its cost)
			c.want.Kind == OomdKill && !strings.HasPrefix(c.want.Reason, "memory pressure"),
			// the 1.14-1.18 message ends with the request's quantity
			c.want.Kind == Eviction && strings.Contains(c.line, "exceeds its request"),
			// the Event's message ends with the pid; kubelet's own line
			// passes through CONSTRAINT_ (cAdvisor's OomInstance)
			c.want.Kind == NodeSystemOOM && !strings.Contains(c.line, "CONSTRAINT_"):
			promised = false
		}
		if promised && !Recognizer().MayContain(c.line) && !EndsWithTail(c.line) {
			t.Errorf("%s: does not pass the prefilter: %q", c.name, c.line)
		}
		if promised && !Recognizer().MayContain(c.line+"\n") && !EndsWithTail(c.line+"\n") {
			t.Errorf("%s: does not pass the prefilter with its line break: %q", c.name, c.line)
		}
		if f := Recognizer().Find(c.line, true); f.Found != oom.FoundNothing {
			t.Errorf("%s: the XLA recogniser finds %v", c.name, f.Found)
		}
	}
}
