// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"slices"
	"time"
)

// Kill is every statement of one OOM event of one cgroup (or of the node) joined, however many tasks it killed.
type Kill struct {
	KillReport            // the victim (the first task killed) and the joined figures
	Tasks       int       // killed (memory.oom.group kills them all)
	Statements  int       // joined into the kill
	Complete    bool      // its own line seen ("Killed process", a user-space killer's)
	First, Last time.Time // its first and last statement's
}

// Owner is whose the victim's cgroup is, else the limit's, else what the statement names (a pod, a Slurm step).
func (k *Kill) Owner() Owner {
	switch {
	case k.PodUID != "":
		return Owner{Kind: OwnerPod, PodUID: k.PodUID, ContainerID: k.ContainerID, Path: k.Cgroup}
	case k.Job != "":
		return Owner{Kind: OwnerSlurm, SlurmJob: k.Job, SlurmStep: k.Step, Path: k.Cgroup}
	case k.Cgroup != "":
		return OwnerOf(k.Cgroup)
	case k.LimitCgroup != "":
		return OwnerOf(k.LimitCgroup)
	case k.Constraint == ConstraintGlobal:
		return Owner{Kind: OwnerNode}
	}
	return Owner{}
}

// Joiner joins one stream's statements into kills: a kernel kill closes at its "Killed process" line (its event's
// later lines join it), else at the next event, after Quiet, at MaxStatements or at Flush; another source's statement
// is a kill each, a repeated Key dropped. Bounded (one open event, MaxKeys keys); not safe for concurrent use.
type Joiner struct {
	Quiet         time.Duration // default DefaultQuiet
	MaxStatements int           // default 64
	MaxKeys       int           // default 256
	// Hold keeps a kernel kill open until its event ends, so that Tasks
	// counts a memory.oom.group kill's every task (a whole log's reader).
	Hold bool

	open *Kill // the event being read
	last Kind  // its latest statement's: an earlier kind starts the next event
	// done is the kill the last statement Add took completed, if completed.
	done      Kill
	completed bool
	// tail is the last closed kernel kill, which its event's later lines join.
	tail    Kill
	hasTail bool
	keys    []string // recent keys, oldest first
	// lender is the last SIGKILL report (Kind.Lends), which lends its pid
	// and command to the next kill that names none within Quiet.
	lender    KillReport
	lenderAt  time.Time
	hasLender bool
}

// Add joins s, printed at at (zero: no quiet interval closes it), and returns the kills it closes, in order.
func (j *Joiner) Add(at time.Time, s KillReport) []Kill {
	var out []Kill
	j.completed = false
	if j.open != nil && j.quietSince(j.open.Last, at) {
		out = j.closeOpen(out)
	}
	if j.hasTail && j.quietSince(j.tail.Last, at) {
		out = j.endTail(out)
	}
	if s.Kind.Lends() {
		j.lender, j.lenderAt, j.hasLender = s, at, true
		return out
	}
	if !s.Kind.Kernel() {
		if s.Key != "" && j.seen(s.Key) {
			return out
		}
		if key := oomdKey(&s); key != "" && j.seen(key) {
			return out
		}
		if s.PID == 0 && j.hasLender && !j.quietSince(j.lenderAt, at) {
			s.PID, s.Command, j.hasLender = j.lender.PID, j.lender.Command, false
		}
		j.done, j.completed = Kill{KillReport: s, Tasks: 1, Statements: 1, Complete: true, First: at, Last: at}, true
		return append(out, j.done)
	}
	if j.joinsTail(s) {
		j.tail.Statements++
		j.tail.Last = at
		if s.Kind == KernelKilled && s.PID != j.tail.PID {
			j.tail.Tasks++
		}
		return out
	}
	if j.open != nil && (s.Kind == KernelInvoked || s.Kind < j.last || s.Kind == KernelSelect && j.last == KernelSelect) {
		out = j.closeOpen(out) // a reader of some lines only may miss "invoked"
	}
	if j.open == nil {
		out = j.endTail(out)
		j.open = &Kill{KillReport: KillReport{Ref: s.Ref}, First: at}
	}
	k := j.open
	j.last = s.Kind
	k.Statements++
	k.Last = at
	merge(k, s)
	if s.Kind == KernelKilled {
		k.Complete, k.Tasks = true, 1
		j.tail, j.hasTail, j.open = *k, true, nil
		j.done, j.completed = *k, true
		if j.Hold {
			return out
		}
		return append(out, *k)
	}
	if k.Statements >= positiveOr(j.MaxStatements, 64) {
		out = j.closeOpen(out)
	}
	return out
}

// Completed returns the kill the last statement Add took completed, as it
// stands then: Hold keeps a kernel kill open after it.
func (j *Joiner) Completed() (Kill, bool) {
	return j.done, j.completed
}

// Pending reports whether an event is open: a kill no statement completed yet may end at Expire or Flush.
func (j *Joiner) Pending() bool { return j.open != nil }

// Flush closes the open event and returns it when it named a victim.
func (j *Joiner) Flush() []Kill {
	return j.closeOpen(j.endTail(nil))
}

// endTail forgets the last closed kill, returning it when Hold kept it.
func (j *Joiner) endTail(out []Kill) []Kill {
	if j.hasTail && j.Hold {
		out = append(out, j.tail)
	}
	j.hasTail = false
	return out
}

// Expire closes the open event when now is Quiet after its last statement.
func (j *Joiner) Expire(now time.Time) []Kill {
	var out []Kill
	if j.hasTail && j.quietSince(j.tail.Last, now) {
		out = j.endTail(out)
	}
	if j.open != nil && j.quietSince(j.open.Last, now) {
		out = j.closeOpen(out)
	}
	return out
}

func (j *Joiner) closeOpen(out []Kill) []Kill {
	k := j.open
	j.open = nil
	if k != nil && (k.PID != 0 || k.Cgroup != "") {
		k.Tasks = 1
		out = append(out, *k)
	}
	return out
}

// joinsTail: a later line of the kill just closed (oom.group's other tasks, the reaper), not a new event's.
func (j *Joiner) joinsTail(s KillReport) bool {
	return j.hasTail && j.open == nil && (s.Kind == KernelReaped || s.Kind == KernelKilled || s.Kind == KernelGroup)
}

func merge(k *Kill, s KillReport) {
	if s.Kind == KernelInvoked {
		if k.Reason == "" {
			k.Reason = "invoked by " + s.Command
		}
		return
	}
	if s.PID != 0 && (k.PID == 0 || s.Kind == KernelKilled) {
		k.PID, k.Command = s.PID, s.Command
	}
	if s.Kind == KernelKilled || k.RSS == 0 {
		k.RSS, k.AnonRSS, k.FileRSS, k.Shmem = max(s.RSS, k.RSS), max(s.AnonRSS, k.AnonRSS), max(s.FileRSS, k.FileRSS), max(s.Shmem, k.Shmem)
	}
	if s.Limit != 0 && k.Limit == 0 {
		k.Limit, k.Usage = s.Limit, s.Usage
	}
	if s.Constraint != ConstraintUnknown && (k.Constraint == ConstraintUnknown || s.Kind == KernelSummary) {
		k.Constraint = s.Constraint
	}
	if s.Cgroup != "" && k.Cgroup == "" {
		k.Cgroup = s.Cgroup
	}
	if s.LimitCgroup != "" && k.LimitCgroup == "" {
		k.LimitCgroup = s.LimitCgroup
	}
	// KernelSelect names a kill whose "Killed process" line has not come (yet): the kill says it was selected.
	if k.Kind == KindNone || s.Kind == KernelKilled || s.Kind == KernelSelect && k.Kind != KernelKilled {
		k.Kind = s.Kind
	}
}

func (j *Joiner) quietSince(last, at time.Time) bool {
	return !last.IsZero() && !at.IsZero() && at.Sub(last) > positiveOr(j.Quiet, DefaultQuiet)
}

// DefaultQuiet is the silence after which a kill whose own line has not come ends without it.
const DefaultQuiet = 10 * time.Second

// positiveOr is v, or the default d where v is not set.
func positiveOr[T int | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// seen records key and reports whether it was among the recent ones.
func (j *Joiner) seen(key string) bool {
	if slices.Contains(j.keys, key) {
		return true
	}
	if len(j.keys) >= positiveOr(j.MaxKeys, 256) {
		j.keys = append(j.keys[:0], j.keys[1:]...)
	}
	j.keys = append(j.keys, key)
	return false
}
