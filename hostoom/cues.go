// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"github.com/xlaoom/xlaoomprocessor/hostoom/internal/tails"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// cues let the kill lines through the one prefilter pass, each chosen by its
// cost on ordinary lines (BENCHMARKS.md, "Host-memory kills").
var cues = []string{"kB, file-rss:", "kB, limit #", "CONSTRAINT_", "SIGTERM to process", "MiB, cmdline", "GB / #"}

// tailTexts end the kill lines that hold no cue: read only where
// host_kill_tails asks (they cost ordinary records 8 %). Each ends with four
// literal bytes.
var tailTexts = []string{
	" OOM Killed.",           // slurmstepd 23.02+: "… Some of the step tasks have been OOM Killed."
	"out-of-memory handler.", // slurmstepd 17.11.10-22.05
	" cgroup.",               // slurmstepd 17.11.3-17.11.9: "… in step J.S cgroup."
	": Out Of Memory",        // srun 17.02+
	"with reclaim activity",  // systemd-oomd, memory pressure
	"by the OOM killer.",     // systemd: "<unit>: A process of this unit has been killed by the OOM killer."
	" in this unit.",         // systemd: "<unit>: systemd-oomd killed N process(es) in this unit."
	`resourceName="memory"`,  // kubelet: "Eviction manager: must evict pod(s) to reclaim" (structured)
	"to reclaim memory",      // kubelet before structured logging
	"consumption of memory.", // kubelet's eviction message (1.19+)
	"VmRSS # MiB",            // earlyoom 1.3-1.7
}

var (
	tailSet = func() (t tails.Set) {
		t.Add(tailTexts...)
		return t
	}()
	recognizer = oom.Default().WithCues(cues...)
)

// Recognizer is the XLA recogniser whose one prefilter pass also passes
// the kill lines' cues (it finds nothing in them).
func Recognizer() *oom.Recognizer { return recognizer }

// EndsWithTail reports whether text ends with one of tailTexts.
func EndsWithTail(text string) bool { return tailSet.MayEnd(text) }
