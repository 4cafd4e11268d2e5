// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// hostLines gives each line of a kernel log, one record each, to stream key
// and returns what they did.
func hostLines(t *testing.T, a *Assembler, key uint64, log string) (j HostJoin, completed []hostoom.Kill) {
	t.Helper()
	for line := range strings.Lines(log) {
		l := logheader.SplitKernel(strings.TrimRight(line, "\n"))
		if s, ok := hostoom.ParseLine(l.Text); ok {
			j.Complete = false
			require.Empty(t, a.HostStatement(key, t0, s, t0, &j, nil))
			if j.Complete {
				completed = append(completed, j.Completed)
			}
		}
	}
	return j, completed
}

// A real kernel's memory-cgroup kill, one record a line: one kill, with
// the victim, its RSS and the limit, however many records printed it.
func TestHostKillAssembled(t *testing.T) {
	raw, err := os.ReadFile("../../hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt")
	require.NoError(t, err)
	a := New(Config{Window: time.Minute})
	j, completed := hostLines(t, a, 7, string(raw))
	assert.Empty(t, j.Ended, "held until its event ends")
	require.Len(t, completed, 1, "known at its own line")
	k := completed[0]
	assert.Equal(t, int64(29330), k.PID)
	assert.Equal(t, "python3", k.Command)
	assert.Equal(t, int64(64<<20), k.Limit)
	assert.Positive(t, k.RSS)
	assert.Equal(t, hostoom.ConstraintCgroup, k.Constraint)
	assert.GreaterOrEqual(t, k.Statements, 3)
	assert.False(t, a.Open(), "a kill is not a failure")
	assert.Equal(t, 1, a.Streams(), "its stream is kept for the kill's later lines")
	assert.Equal(t, []hostoom.Kill{k}, a.FlushKills(7), "ended once, at the input's end")
	assert.Equal(t, 0, a.Streams())
}

// Streams with host statements count toward the bound on streams.
func TestHostStreamsBounded(t *testing.T) {
	a := New(Config{Window: time.Minute, MaxStreams: 2})
	s, ok := hostoom.ParseLine("Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0")
	require.True(t, ok)
	for key := range uint64(5) {
		var j HostJoin
		a.HostStatement(key, t0, s, t0, &j, nil)
		require.True(t, j.Complete)
	}
	assert.Equal(t, 2, a.Streams())
	assert.Equal(t, int64(3), a.Evicted())
}

// A kill known only from its selection line (kernels 2.6.39-5.0) ends when
// its stream has been quiet for hostoom.DefaultQuiet of wall clock, with its
// stream's origin, once; a complete kill is never ended again; an evicted
// stream's held kill is forgotten.
func TestHostKillsExpireQuiet(t *testing.T) {
	const sel = "[ 3920.118511] Memory cgroup out of memory: Kill process 9120 (python3) score 998 or sacrifice child" // 4.4-5.0
	raw, err := os.ReadFile("../../hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt")
	require.NoError(t, err)
	a := New(Config{Window: time.Minute, MaxStreams: 3})
	s, ok := hostoom.ParseLine(logheader.SplitKernel(sel).Text)
	require.True(t, ok)
	j := HostJoin{Origin: func() any { return "node-7" }}
	a.HostStatement(1, t0, s, t0, &j, nil)
	hostLines(t, a, 2, string(raw)) // complete: carried by its own record
	assert.Empty(t, a.ExpireKills(t0.Add(hostoom.DefaultQuiet)), "not quiet yet")
	ended := a.ExpireKills(t0.Add(hostoom.DefaultQuiet + time.Second))
	require.Len(t, ended, 1)
	assert.Equal(t, hostoom.KernelSelect, ended[0].Kind)
	assert.Equal(t, int64(9120), ended[0].PID)
	assert.False(t, ended[0].Complete)
	assert.Equal(t, "node-7", ended[0].Origin)
	assert.Empty(t, a.ExpireKills(t0.Add(time.Hour)), "once")
	assert.Empty(t, a.FlushAllKills())

	a.HostStatement(3, t0, s, t0, &HostJoin{}, nil)
	for key := uint64(4); key < 7; key++ { // evicts stream 3
		a.HostStatement(key, t0, hostoom.KillReport{Kind: hostoom.SlurmOOM, Job: "1"}, t0, &HostJoin{}, nil)
	}
	assert.Empty(t, a.FlushAllKills(), "an evicted stream's kill is gone with it")
}
