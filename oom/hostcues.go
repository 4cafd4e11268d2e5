// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/tails"
)

// HostCues let the host-memory kill lines that hold a scan key through the
// same one pass (package hostoom reads them): the kernel's "Killed process"
// and "oom_reaper" figures, its memory cgroup's "usage …kB, limit", the
// oom-kill summary's CONSTRAINT_, earlyoom's (1.8+), Ray's "…GB / …GB".
// Each was chosen by its cost on ordinary lines (BENCHMARKS.md, "Host-memory
// kills"): "invoked oom-killer" (0.5-1.2 %) and Ray's "GB)" (3.6 %) are left
// out. hostoom's tests check that the XLA recogniser finds nothing in them.
var HostCues = []logtext.Cue{
	{Text: "kB, file-rss:"},
	{Text: "kB, limit #"},
	{Text: "CONSTRAINT_"},
	{Text: "SIGTERM to process"},
	{Text: "MiB, cmdline"},
	{Text: "GB / #"},
}

// HostTails are how the host-memory kill lines that hold no scan key end,
// as tail cues (package tails). They are not in MayContain: on every record
// they cost ordinary records 8 % (BENCHMARKS.md, "Host-memory kills"), so
// the processor checks them only where host_kill_tails asks. A tail ends
// with four literal bytes, so systemd-oomd's "… being more than N%" is read
// from the journal only, and "oom_score_adj=N" not as plain text.
var HostTails = []string{
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

var hostTails = func() (t tails.Set) {
	t.Add(HostTails...)
	return t
}()

// EndsWithHostTail reports whether text ends with one of HostTails.
func EndsWithHostTail(text string) bool { return hostTails.MayEnd(text) }
