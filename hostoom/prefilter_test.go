// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// TestProcessorReach: the statements the processor reads from a string
// body come through the XLA prefilter's host cues (oom's
// oom.HostCues): the kernel's kill, reaper, usage and summary lines,
// earlyoom's (but a SIGKILL line of before 1.7) and Ray's kills. "invoked
// oom-killer" is left out (its cost): the joiner does without it. No
// XLA failure is found in any of them. The rest reach the processor as
// structured bodies (docs/incidents.md, "Host-memory kills").
func TestProcessorReach(t *testing.T) {
	reach := map[Kind]bool{KernelKilled: true, KernelReaped: true, KernelUsage: true, KernelSummary: true,
		EarlyoomKill: true, RayOOM: true}
	all := append(append([]struct {
		name, line string
		want       Statement
	}{}, kernelCases...), sourceCases...)
	for _, c := range all {
		promised := reach[c.want.Kind]
		switch {
		case c.want.Kind == KernelSummary && !strings.Contains(c.line, "CONSTRAINT_"),
			c.want.Kind == EarlyoomKill && c.want.Reason == "SIGKILL" && !strings.Contains(c.line, "cmdline"),
			c.want.Kind == RayOOM && c.want.Reason == "raylet summary":
			promised = false
		}
		if promised && !oom.MayContain(c.line) {
			t.Errorf("%s: does not pass the prefilter: %q", c.name, c.line)
		}
		if f := oom.Default().Find(c.line, true); f.Found != oom.FoundNothing {
			t.Errorf("%s: the XLA recogniser finds %v", c.name, f.Found)
		}
	}
}
