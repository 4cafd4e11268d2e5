// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"strconv"
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Defaults of the job history the repeat rule reads.
const (
	// DefaultHistoryTTL covers a Slurm requeue's wait in the queue and a
	// Kubernetes Job's back-off (at most 6 minutes) many times over.
	DefaultHistoryTTL = 72 * time.Hour
	DefaultMaxJobs    = 4096
	historyDepth      = 8 // the failures kept per job
)

// Past is what the job history keeps of a failure: enough to tell a repeat.
type Past struct {
	ID            string // the failure's id: a copy delivered twice is kept once
	Code, Program string
	Requested     oom.Size
	At            time.Time // its first statement, else when it opened
	Stream        uint64
	Attempt       bool // known to be of an earlier attempt (`xlaoom run`'s state)
}

// jobHistory is a job's latest failures, a fixed size.
type jobHistory struct {
	past [historyDepth]Past
	n    int // entries used; past[n-1] is the latest
	seen time.Time
}

func (h *jobHistory) add(p Past) {
	if h.n == historyDepth {
		copy(h.past[:], h.past[1:])
		h.n--
	}
	h.past[h.n] = p
	h.n++
}

// PastOf is what the history keeps of f.
func PastOf(f *Failure) Past {
	at := f.First
	if at.IsZero() {
		at = f.Opened
	}
	return Past{ID: f.ID, Code: f.Report.Code, Program: strings.Clone(f.Report.Program), Requested: f.Report.Requested,
		At: at, Stream: f.Stream}
}

// Repeats reports whether p failed the way q did: the same code and program, and requests
// within ±1% (both unknown only with a program named).
func (p Past) Repeats(q Past) bool {
	if p.Code != q.Code || p.Program != q.Program {
		return false
	}
	if !p.Requested.Known || !q.Requested.Known {
		return !p.Requested.Known && !q.Requested.Known && p.Program != ""
	}
	d := p.Requested.Bytes - q.Requested.Bytes
	return max(d, -d)*100 <= max(p.Requested.Bytes, q.Requested.Bytes)
}

// earlierAttempt: p is of an attempt before q's, whose process started at
// started (zero: unknown). A process started after p failed is a later
// attempt; without one, a failure of another stream a window or more
// before q is (the hosts of one attempt fail within one incident window;
// a restart fails later); a stream's own earlier failure needs the process
// boundary (a program that caught its failure goes on).
func (p Past) earlierAttempt(q Past, started time.Time, window time.Duration) bool {
	switch {
	case p.Attempt:
		return true
	case !started.IsZero():
		return p.At.Before(started)
	}
	return p.Stream != q.Stream && q.At.Sub(p.At) >= window
}

// Remember adds past failures of job, as `xlaoom run` reads them from its
// state, before its own.
func (a *Assembler) Remember(job uint64, past []Past, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range past {
		a.remember(job, p, now)
	}
}

// Arrived takes a failure record another processor made (an agent's, at the
// gateway its job is routed to) into its job's history and returns how many
// of the job's earlier attempts it repeats.
func (a *Assembler) Arrived(job uint64, p Past, now time.Time) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.earlier(job, p, time.Time{}, now)
	a.remember(job, p, now)
	return n
}

// remember adds p to job's history; the caller holds mu.
func (a *Assembler) remember(job uint64, p Past, now time.Time) {
	if job == 0 || a.cfg.RepeatsOff {
		return
	}
	h, ok := a.history.Get(job)
	if !ok {
		a.history.Put(job, jobHistory{})
		h, _ = a.history.Get(job)
		a.history.Trim(a.cfg.MaxJobs)
	}
	for _, o := range h.past[:h.n] {
		if p.ID != "" && o.ID == p.ID {
			return // delivered again
		}
	}
	h.add(p)
	h.seen = now
	a.history.Touch(job)
}

// earlier counts the job's failures that q repeats from earlier attempts.
func (a *Assembler) earlier(job uint64, q Past, started, now time.Time) int {
	h, ok := a.history.Get(job)
	if !ok {
		return 0
	}
	if now.Sub(h.seen) > a.cfg.HistoryTTL {
		a.history.Remove(job)
		return 0
	}
	n := 0
	for _, p := range h.past[:h.n] {
		if p.ID != q.ID && p.Repeats(q) && p.earlierAttempt(q, started, a.cfg.Window) {
			n++
		}
	}
	return n
}

// facts are what stream s and its job say of b's failure r; the caller holds mu.
func (a *Assembler) facts(s *stream, b *building, r *oom.Report, now time.Time) oom.Facts {
	f := oom.Facts{Attempts: b.f.Attempts, Job: b.job != 0, RepeatsOff: a.cfg.RepeatsOff}
	if s.start != nil {
		f.Start = s.start.Device(ordinal(r.Device))
	}
	if f.Job && !f.RepeatsOff {
		q := PastOf(&b.f)
		q.Requested, q.Program, q.Code = r.Requested, r.Program, r.Code
		f.Earlier = a.earlier(b.job, q, s.started, now)
	}
	return f
}

// ordinal is a device's number, -1 if r.Device is none.
func ordinal(device string) int {
	n, err := strconv.Atoi(device)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
