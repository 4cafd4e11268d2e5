// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package failure

import (
	"time"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
)

// The host's OOM killer is the job's other memory death. The kernel prints
// one kill as several records of its log's stream ("invoked oom-killer",
// the cgroup's usage and limit, the task table, the oom-kill summary,
// "Killed process", the reaper), so the stage assembles kills too: a stream
// that held a host statement keeps a hostoom.Joiner beside its failures,
// under the same bounds (MaxStreams, TTL).

// HostStatement joins host-memory statement st of stream key, printed at
// at, and returns the kills it closed, and closed with the failures that
// closed to make room for the stream.
func (a *Assembler) HostStatement(key uint64, at time.Time, st hostoom.Statement, now time.Time, closed []Failure) ([]hostoom.Kill, []Failure) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, closed := a.lookup(key, now, closed)
	if s.host == nil {
		s.host = &hostoom.Joiner{Hold: a.cfg.HoldKills}
	}
	return s.host.Add(at, st), closed
}

// FlushKills closes the kill stream key holds open and returns the kills
// it held (with HoldKills, the last one too): at the end of an input.
func (a *Assembler) FlushKills(key uint64) []hostoom.Kill {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.streams.Get(key)
	if !ok || s.host == nil {
		return nil
	}
	kills := s.host.Flush()
	s.host = nil
	a.tidy(key, s)
	return kills
}
