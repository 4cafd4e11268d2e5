// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package failure

import (
	"time"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
)

// HostJoin is what one statement did to its stream's kills.
type HostJoin struct {
	Ended     []hostoom.Kill // the kills that ended, in order: each once
	Completed hostoom.Kill   // the kill the statement's own line completed
	Complete  bool           // Completed is set
}

// HostStatement joins statement st of stream key, printed at at, into j;
// the stream's Joiner holds a kernel kill until its event ends.
func (a *Assembler) HostStatement(key uint64, at time.Time, st hostoom.Statement, now time.Time, j *HostJoin, closed []Failure) []Failure {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, closed := a.lookup(key, now, closed)
	if s.host == nil {
		s.host = &hostoom.Joiner{Hold: true}
	}
	j.Ended = append(j.Ended, s.host.Add(at, st)...)
	if k, ok := s.host.Completed(); ok {
		j.Completed, j.Complete = k, true
	}
	return closed
}

// FlushKills returns the kills stream key still holds: at an input's end.
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
