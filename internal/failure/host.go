// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package failure

import (
	"time"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
)

// The kernel prints one host-memory kill as several records, so a stream
// that held a host statement keeps a hostoom.Joiner under the same bounds.

// HostStatement joins statement st of stream key, printed at at, and
// returns the kills it closed.
func (a *Assembler) HostStatement(key uint64, at time.Time, st hostoom.Statement, now time.Time, closed []Failure) ([]hostoom.Kill, []Failure) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, closed := a.lookup(key, now, closed)
	if s.host == nil {
		s.host = &hostoom.Joiner{Hold: a.cfg.HoldKills}
	}
	return s.host.Add(at, st), closed
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
