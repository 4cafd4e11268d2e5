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
// requeued attempt does in the same file; it reports whether it read one.
func (a *Assembler) Startup(key uint64, text string, at, now time.Time, closed []Failure) (bool, []Failure) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.streams.Get(key)
	if !ok || s.start == nil {
		if !oom.StartupMayContain(text) {
			return false, closed // no stream is kept for nothing
		}
		p := new(oom.Process)
		if !p.Read(text) {
			return false, closed
		}
		s, closed = a.lookup(key, now, closed)
		s.start, s.started = p, at
		return true, closed
	}
	s.seen = now
	a.streams.Touch(key)
	n := s.start.Processes()
	read := s.start.Read(text)
	if read && s.start.Processes() != n {
		s.started = at // a new process began
	}
	return read, closed
}
