// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/lru"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Defaults of Config.
const (
	// DefaultQuiet: the real jobs' (oom/testdata/jobs) records come within a second.
	DefaultQuiet      = 5 * time.Second
	DefaultMaxRecords = 100_000
	DefaultMaxStreams = 4096
	DefaultTTL        = 24 * time.Hour
)

// Config bounds the assembler.
type Config struct {
	Window     time.Duration // the record-time gap between two failures of a stream
	Quiet      time.Duration // the wall-clock silence that closes a failure (Expire)
	MaxRecords int           // the records one failure takes
	MaxStreams int           // past it, the stream used longest ago is evicted
	TTL        time.Duration // a stream not heard of for that long is forgotten
	// HistoryTTL and MaxJobs bound the job history the repeat rule reads
	// (history.go); RepeatsOff turns the rule off.
	HistoryTTL time.Duration
	MaxJobs    int
	RepeatsOff bool
}

// Assembler assembles the failures of many streams, safe for concurrent use.
type Assembler struct {
	cfg Config

	mu      sync.Mutex
	streams *lru.Map[uint64, stream]
	opens   *lru.Map[uint64, struct{}]   // the streams with an open failure
	jobs    *lru.Map[uint64, time.Time]  // when each job's last incident opened
	history *lru.Map[uint64, jobHistory] // each job's latest failures, by Statement.RepeatJob
	seq     uint64
	open    atomic.Int64 // the streams with an open failure, read without mu
	evicted atomic.Int64
	// resources counts open failures by resource slot, for OpenIn without mu.
	resources [1024]atomic.Int32
	// holding are the streams whose Joiner holds a kill no record carried yet (ExpireKills).
	holding map[uint64]struct{}
}

// stream is what is kept of one stream: a fixed size.
type stream struct {
	// attempts counts the stream's attempts: a pool that backed off stays smaller.
	attempts int
	cur      *building
	seen     time.Time       // wall clock of its last record
	host     *hostoom.Joiner // its host-memory kill statements (host.go), if any
	origin   any             // where its host statements came from (HostJoin.Origin), once one is held
	start    *oom.Process    // what its process printed at start-up, if anything
	started  time.Time       // when that process's start-up lines began (zero: unknown)
}

// building is a failure still open.
type building struct {
	f        Failure
	resource uint64
	ev       evidence
	verdict  string // the first verdict other than unknown a statement was given
	own      int    // the attempts in the failure's own statements
	lastStmt time.Time
	ownAfter int // the program's own lines since the last statement (wenton.go)
	dying    bool
	job      uint64 // Statement.RepeatJob
}

// New returns an empty assembler; zero fields of cfg take the defaults.
func New(cfg Config) *Assembler {
	if cfg.Quiet <= 0 {
		cfg.Quiet = DefaultQuiet
	}
	if cfg.MaxRecords <= 0 {
		cfg.MaxRecords = DefaultMaxRecords
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.HistoryTTL <= 0 {
		cfg.HistoryTTL = DefaultHistoryTTL
	}
	if cfg.MaxJobs <= 0 {
		cfg.MaxJobs = DefaultMaxJobs
	}
	return &Assembler{cfg: cfg, streams: lru.New[uint64, stream](), opens: lru.New[uint64, struct{}](),
		jobs: lru.New[uint64, time.Time](), history: lru.New[uint64, jobHistory](), holding: map[uint64]struct{}{}}
}

// Open reports whether any stream has an open failure, without the lock.
func (a *Assembler) Open() bool { return a.open.Load() > 0 }

// OpenIn is Open for the streams of resource (Statement.Resource).
func (a *Assembler) OpenIn(resource uint64) bool {
	return a.slot(resource).Load() > 0
}

// slot is resource's counter: the top bits of its hash, mixed.
func (a *Assembler) slot(resource uint64) *atomic.Int32 {
	return &a.resources[(resource*0x9e3779b97f4a7c15)>>54]
}

// Evicted is the number of streams evicted since the last call.
func (a *Assembler) Evicted() int64 { return a.evicted.Swap(0) }

// Attempted takes n driver refusals of stream key, given to its later failures.
func (a *Assembler) Attempted(key uint64, n int, now time.Time, closed []Failure) []Failure {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, closed := a.lookup(key, now, closed)
	s.attempts = min(s.attempts+max(n, 1), 1<<30)
	if s.cur != nil {
		s.cur.f.Attempts = min(s.attempts+s.cur.own, 1<<30)
	}
	return closed
}

// Evidence reads a non-statement record into stream key's open failure.
func (a *Assembler) Evidence(key uint64, text string, now time.Time, closed []Failure) []Failure {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.streams.Get(key)
	if !ok || s.cur == nil {
		return closed
	}
	s.seen = now
	a.streams.Touch(key)
	a.opens.Touch(key)
	b := s.cur
	b.f.Records++
	b.ev.read(text)
	b.readOutput(text)
	switch {
	case oom.Raised(text) && !tracebackHead(text):
		closed = a.close(key, s, ClosedRaised, closed)
	case b.wentOn(wentOnEarly):
		closed = a.close(key, s, ClosedWentOn, closed)
	case b.f.Records >= a.cfg.MaxRecords:
		closed = a.close(key, s, ClosedBound, closed)
	}
	a.tidy(key, s)
	return closed
}

// Statement is the record of one failure statement.
type Statement struct {
	Report *oom.Report
	At     time.Time // the record's time; zero: undated
	Text   string    // the record's text, read for evidence
	Sent   bool      // the record keeps its sender's verdict; its own is not handed on
	// Origin, if set, is called when the statement opens a failure.
	Origin   func() any
	Resource uint64 // the key of the stream's resource, for OpenIn
	Job      uint64 // incident.JobKey of the stream (0: none), for opened
	// RepeatJob keys the job's history for the repeat rule: 0 where no
	// attribute names a job (a namespace is not a job).
	RepeatJob uint64
}

// Statement takes statement st of stream key at now, returning its step.
func (a *Assembler) Statement(key uint64, st Statement, now time.Time, closed []Failure) (Step, []Failure) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := st.Report
	s, closed := a.lookup(key, now, closed)
	if b := s.cur; b != nil && !joins(b, st.At, a.cfg.Window) {
		closed = a.close(key, s, ClosedNext, closed)
	}
	if s.cur == nil {
		a.seq++
		s.cur = &building{f: Failure{Stream: key, ID: failureID(key, st.At, a.seq), Report: *r, First: st.At,
			Opened: a.opened(st, now)}, resource: st.Resource, job: st.RepeatJob}
		if st.Origin != nil {
			s.cur.f.Origin = st.Origin()
		}
		a.open.Add(1)
		a.slot(st.Resource).Add(1)
		a.opens.Put(key, struct{}{})
	} else {
		merge(&s.cur.f.Report, r)
		a.opens.Touch(key)
	}
	b := s.cur
	b.own = min(b.own+r.Attempts, 1<<30)
	b.f.Attempts = min(s.attempts+b.own, 1<<30)
	b.f.Statements++
	b.f.Records++
	b.ownAfter = 0
	if !st.At.IsZero() {
		b.f.Last, b.lastStmt = st.At, st.At
	}
	b.ev.read(st.Text)
	step := Step{ID: b.f.ID, Attempts: b.f.Attempts, Verdict: b.verdict, Opened: b.f.Opened}
	if step.Verdict == "" {
		step.Verdict = oom.Judge(r, a.facts(s, b, r, now)).Verdict
		if step.Verdict != oom.RetryUnknown && !st.Sent {
			b.verdict = step.Verdict
		}
	}
	switch {
	case oom.Raised(st.Text) || r.ExceptionType != "":
		closed = a.close(key, s, ClosedRaised, closed)
	case b.f.Records >= a.cfg.MaxRecords:
		closed = a.close(key, s, ClosedBound, closed)
	}
	a.tidy(key, s)
	return step, closed
}

// opened is the time st's failure buckets its incident by: its job's, when
// one opened within the window, so hosts across a bucket's edge share it.
func (a *Assembler) opened(st Statement, now time.Time) time.Time {
	at := st.At
	if at.IsZero() {
		at = now
	}
	if st.Job == 0 {
		return at
	}
	if first, ok := a.jobs.Get(st.Job); ok && at.Sub(*first).Abs() < a.cfg.Window {
		a.jobs.Touch(st.Job)
		return *first
	}
	a.jobs.Put(st.Job, at)
	a.jobs.Trim(a.cfg.MaxStreams)
	return at
}

// tracebackHead: text is a traceback's head line alone (lines not grouped);
// its exception line, the raised status, comes later.
func tracebackHead(text string) bool {
	t := strings.TrimSpace(text)
	return !strings.Contains(t, "\n") && strings.HasSuffix(t, "Traceback (most recent call last):")
}

// tidy forgets a stream that holds nothing; the caller holds mu.
func (a *Assembler) tidy(key uint64, s *stream) {
	if s.cur == nil && s.attempts == 0 && s.host == nil && s.start == nil {
		a.streams.Remove(key)
	}
}

// joins: at is less than window after b's last statement, or either undated.
func joins(b *building, at time.Time, window time.Duration) bool {
	return at.IsZero() || b.lastStmt.IsZero() || at.Sub(b.lastStmt) < window
}

// Expire closes the failures quiet at now and forgets streams past the TTL.
func (a *Assembler) Expire(now time.Time, closed []Failure) []Failure {
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		key, _, ok := a.opens.Oldest()
		if !ok {
			break
		}
		s, _ := a.streams.Get(key)
		if now.Sub(s.seen) < a.cfg.Quiet {
			break
		}
		closed = a.close(key, s, ClosedQuiet, closed)
		a.tidy(key, s)
	}
	for {
		key, s, ok := a.streams.Oldest()
		if !ok || now.Sub(s.seen) < a.cfg.TTL {
			break
		}
		if s.cur != nil {
			closed = a.close(key, s, ClosedQuiet, closed)
		}
		a.streams.Remove(key)
	}
	return closed
}

// Flush closes every open failure: at shutdown, or at the end of an input.
func (a *Assembler) Flush(closed []Failure) []Failure {
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		key, s, ok := a.streams.Oldest()
		if !ok {
			return closed
		}
		if s.cur != nil {
			closed = a.close(key, s, ClosedFlush, closed)
		}
		a.streams.Remove(key)
	}
}

// lookup returns key's stream, touched at now, evicting to make room.
func (a *Assembler) lookup(key uint64, now time.Time, closed []Failure) (*stream, []Failure) {
	if s, ok := a.streams.Get(key); ok {
		s.seen = now
		a.streams.Touch(key)
		return s, closed
	}
	for a.streams.Len() >= a.cfg.MaxStreams {
		old, s, _ := a.streams.Oldest()
		if s.cur != nil {
			closed = a.close(old, s, ClosedEvicted, closed)
		}
		a.streams.Remove(old)
		a.evicted.Add(1)
	}
	a.streams.Put(key, stream{seen: now})
	s, _ := a.streams.Get(key)
	return s, closed
}

// close completes stream key's open failure; the caller holds mu.
func (a *Assembler) close(key uint64, s *stream, why Close, closed []Failure) []Failure {
	b := s.cur
	s.cur = nil
	a.open.Add(-1)
	a.slot(b.resource).Add(-1)
	a.opens.Remove(key)
	f := b.f
	f.Closed = why
	if why != ClosedRaised && b.wentOn(wentOnLines) {
		f.Closed = ClosedWentOn
	}
	var stream framework
	if s.start != nil && s.start.TensorFlow() {
		stream = framework{name: oom.FrameworkTensorFlow, strength: oom.FrameworkByLog}
	}
	b.ev.apply(&f.Report, stream)
	f.Holders = b.ev.sortedHolders()
	f.Facts = a.facts(s, b, &f.Report, s.seen)
	f.Decision = oom.Decide(&f.Report, f.Facts)
	if f.Closed != ClosedWentOn {
		a.remember(b.job, PastOf(&f), s.seen)
		if s.start != nil {
			s.start.Ended() // the process failed: its next start-up line begins another
		}
	}
	return append(closed, f)
}

// failureID hashes the stream, the first statement's time and a sequence.
func failureID(key uint64, at time.Time, seq uint64) string {
	h := key ^ uint64(at.UnixNano())*0x9e3779b97f4a7c15 ^ seq*0xbf58476d1ce4e5b9
	h ^= h >> 31
	h *= 0x94d049bb133111eb
	h ^= h >> 29
	return strconv.FormatUint(h, 16)
}

// Streams is the number of streams remembered.
func (a *Assembler) Streams() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.streams.Len()
}

// HostJoin is what one statement did to its stream's kills.
type HostJoin struct {
	Ended     []hostoom.Kill // the kills that ended, in order: each once
	Completed hostoom.Kill   // the kill the statement's own line completed
	Complete  bool           // Completed is set
	// Origin is where the statement came from, asked for once while the
	// stream holds a kill no record carried yet (EndedKill.Origin).
	Origin func() any
}

// EndedKill is a kill that ended with no record to carry it: its stream went quiet, or the input ended (a
// selection line whose kill line never came).
type EndedKill struct {
	hostoom.Kill
	Origin any // HostJoin.Origin's, of its stream
}

// HostStatement joins statement st of stream key, printed at at, into j;
// the stream's Joiner holds a kernel kill until its event ends.
func (a *Assembler) HostStatement(key uint64, at time.Time, st hostoom.KillReport, now time.Time, j *HostJoin, closed []Failure) []Failure {
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
	if !s.host.Pending() {
		delete(a.holding, key)
	} else if a.holding[key] = struct{}{}; s.origin == nil && j.Origin != nil {
		s.origin = j.Origin()
	}
	return closed
}

// ExpireKills returns the kills held that no record carried, of the streams with no record for
// hostoom.DefaultQuiet of wall clock at now: a kill known only from lines before its own (the selection line).
func (a *Assembler) ExpireKills(now time.Time) []EndedKill {
	return a.endKills(func(s *stream) bool { return now.Sub(s.seen) > hostoom.DefaultQuiet })
}

// FlushAllKills returns every kill held that no record carried: at shutdown.
func (a *Assembler) FlushAllKills() []EndedKill {
	return a.endKills(func(*stream) bool { return true })
}

func (a *Assembler) endKills(quiet func(*stream) bool) []EndedKill {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.holding) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(a.holding))
	var out []EndedKill
	for _, key := range keys {
		s, ok := a.streams.Get(key)
		if !ok || s.host == nil {
			delete(a.holding, key) // evicted
			continue
		}
		if !quiet(s) {
			continue
		}
		for _, k := range s.host.Flush() {
			if !k.Complete { // a complete kill's own record carried it
				out = append(out, EndedKill{Kill: k, Origin: s.origin})
			}
		}
		if !s.host.Pending() {
			delete(a.holding, key)
		}
	}
	return out
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
