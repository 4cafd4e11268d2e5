// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"time"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Startup reads a record of stream key printed at at for what its process
// says of its devices, pools and plan (oom.Process); the first such line
// after the process failed begins the next process, as a Slurm job's
// requeued attempt does in the same file.
func (a *Assembler) Startup(key uint64, text string, at, now time.Time, closed []Failure) []Failure {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.streams.Get(key)
	if !ok || s.start == nil {
		var p oom.Process
		if !p.Read(text) {
			return closed // nothing read: no stream is kept for it
		}
		s, closed = a.lookup(key, now, closed)
		s.start, s.started = &p, at
		s.framework.read(text)
		return closed
	}
	s.seen = now
	a.streams.Touch(key)
	s.framework.read(text)
	n := s.start.Processes()
	if s.start.Read(text) && s.start.Processes() != n {
		s.started = at // a new process began
	}
	return closed
}
