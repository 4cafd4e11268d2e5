// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"slices"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/hostoom/internal/tails"
	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// anchors are words every statement Parse reads holds one of.
var anchors = []string{
	"oom", "OOM", "Killed process", "Kill process", "memory: usage", "Task in ", "Memory cgroup stats",
	"Out Of Memory", "low on resource: memory", "must evict pod(s)", "Memory on the node", "sending SIG", " due to memory ", " due to swap used",
	" Killed  ", "DataLoader worker (pid", "(exitcode: -9)", "(SIGKILL) received by PID",
}

// MayContain reports whether text may hold a statement Parse reads (the processor has Recognizer's prefilter).
func MayContain(text string) bool {
	return slices.ContainsFunc(anchors, func(a string) bool { return strings.Contains(text, a) })
}

// Parse reads the first statement of a record: a kernel log line (header or not), a journal, kubelet, Slurm or Ray one.
func Parse(text string) (KillReport, bool) {
	if !MayContain(text) {
		return KillReport{}, false
	}
	for line := range strings.SplitSeq(text, "\n") {
		if s, ok := ParseLine(logheader.SplitKernel(strings.TrimRight(line, "\r")).Text); ok {
			return s, true
		}
	}
	return KillReport{}, false
}

// JournalStatement reads a journald MESSAGE: kernel lines only from the kernel (a program quoting one is no kill).
func JournalStatement(message, transport string) (KillReport, bool) {
	s, ok := Parse(message)
	return s, ok && (!s.Kind.Kernel() || transport == "" || transport == "kernel")
}

// EventStatement reads a Kubernetes Event's message, else its note.
func EventStatement(message, note string) (KillReport, bool) {
	if s, ok := Parse(message); ok {
		return s, true
	}
	return Parse(note)
}

// ParseLine reads one message whose header is already off.
func ParseLine(msg string) (KillReport, bool) {
	msg = strings.TrimLeft(msg, " \t")
	for _, parse := range []func(string) (KillReport, bool){parseKernel, parseUserspace, parseKubernetes, parseSlurmRay, parseLender} {
		if s, ok := parse(msg); ok {
			return s, true
		}
	}
	return KillReport{}, false
}

// cues let the kill lines through the one prefilter pass (their cost: BENCHMARKS.md, "Host-memory kills").
var cues = []string{"kB, file-rss:", "kB, limit #", "CONSTRAINT_", "SIGTERM to process", "MiB, cmdline", "GB / #"}

// tailTexts end the kill lines that hold no cue: read only where host_kill_tails asks (they cost ordinary records
// 8 %). Each ends with four literal bytes.
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
	"or sacrifice child",     // the kernel's selection line, 2.6.39-5.0 (RHEL 6 and 7): its kill line may never come
}

var (
	tailSet = func() (t tails.Set) {
		t.Add(tailTexts...)
		return t
	}()
	recognizer = oom.Default().WithCues(append(slices.Clone(cues), oom.StartupCues...)...)
)

// Recognizer is the XLA recogniser whose one prefilter pass also passes
// the kill lines' cues and the start-up lines' (oom.Process), in which it
// finds nothing.
func Recognizer() *oom.Recognizer { return recognizer }

// EndsWithTail reports whether text ends with one of tailTexts.
func EndsWithTail(text string) bool { return tailSet.Last(text) && tailSet.MayEnd(text) }

// MayEndWithTail is EndsWithTail's first test, the text's last byte, small
// enough to be inlined where every record is asked: most fail it.
func MayEndWithTail(text string) bool { return len(text) >= 8 && tailLast[text[len(text)-1]] }

var tailLast = tailSet.LastBytes()
