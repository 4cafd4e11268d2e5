// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"

// HostCues let the host-memory kill lines that hold a scan key through the
// same one pass, so that the processor reads them (package hostoom) at no
// measurable cost to ordinary records: the kernel's "Killed process" and
// "oom_reaper" figures ("…kB, file-rss:"), its memory cgroup's "memory:
// usage …kB, limit", the oom-kill summary's CONSTRAINT_, earlyoom's
// "sending SIGTERM to process" and "… MiB, cmdline" (1.7+), Ray's "…GB /
// …GB". Each was chosen by its cost on ordinary lines (BENCHMARKS.md,
// "Host-memory kills"): "invoked oom-killer" (its gfp names) and Ray's "GB)"
// cost 1-4 % and are left out. The XLA recogniser finds no failure in them
// (hostoom's tests check both).
var HostCues = []logtext.Cue{
	{Text: "kB, file-rss:"},
	{Text: "kB, limit #"},
	{Text: "CONSTRAINT_"},
	{Text: "SIGTERM to process"},
	{Text: "MiB, cmdline"},
	{Text: "GB / #"},
}
